// @peculiar/x509 relies on decorator metadata; the entry file of every process loads this first.
import 'reflect-metadata';
