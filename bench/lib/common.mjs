// Small helpers shared by the bench sections: statistics, load average, child processes.
import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const benchDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const repoDir = path.dirname(benchDir);

/** @returns {string} the first three fields of /proc/loadavg */
export function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

/**
 * @param {number[]} values
 * @param {number} p percentile, 0..100
 */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/** @param {number[]} values */
export function mean(values) {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * Half-width of the 95 % confidence interval of the mean (normal approximation).
 * @param {number[]} values
 */
export function ci95(values) {
  if (values.length < 2) return NaN;
  const m = mean(values);
  const variance = values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1);
  return (1.96 * Math.sqrt(variance)) / Math.sqrt(values.length);
}

/**
 * @param {number} value
 * @param {number} [digits]
 */
export function fmt(value, digits = 1) {
  if (value === undefined || value === null || Number.isNaN(value)) return 'n/a';
  return value.toFixed(digits);
}

/** @param {number} bytes */
export function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/**
 * A markdown table.
 * @param {string[]} header
 * @param {(string | number)[][]} rows
 */
export function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

/**
 * Runs a command to completion; rejects on a non-zero exit.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, input?: string }} [options]
 * @returns {Promise<{ stdout: string, stderr: string }>}
 */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    /** @type {Buffer[]} */
    const out = [];
    /** @type {Buffer[]} */
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString();
      const stderr = Buffer.concat(err).toString();
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.slice(0, 2000)}`));
    });
    if (options.input !== undefined) {
      child.stdin?.on('error', () => {});
      child.stdin?.end(options.input);
    }
  });
}

/**
 * Starts a Node script that prints one JSON line when it is ready, and returns that object and
 * a function that stops the child (SIGTERM, then SIGKILL).
 * @param {string} script
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, nodeArgs?: string[], timeoutMs?: number }} [options]
 * @returns {Promise<{ info: any, stop: () => Promise<void>, pid: number }>}
 */
export function startChild(script, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not get ready in time`));
    }, options.timeoutMs ?? 300_000);
    const exited = new Promise((done) => child.on('exit', done));
    child.on('exit', (code) => {
      if (!ready) {
        clearTimeout(timer);
        reject(new Error(`${script} exited with ${code} before it was ready`));
      }
    });
    child.stdout.on('data', (chunk) => {
      if (ready) return;
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline === -1) return;
      ready = true;
      clearTimeout(timer);
      const info = JSON.parse(buffered.slice(0, newline));
      resolve({
        info,
        pid: /** @type {number} */ (child.pid),
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}

/** The built server the bench runs: apps/server/dist, or BENCH_SERVER_DIST (run.sh --own-build). */
export const serverDist = path.resolve(
  repoDir,
  process.env.BENCH_SERVER_DIST || path.join(repoDir, 'apps/server/dist'),
);

/**
 * Imports a module of the built server (`serverDist`), after the reflect polyfill its entry
 * points load first.
 * @param {string} relative e.g. 'server.js'
 * @returns {Promise<any>}
 */
export async function importServer(relative) {
  const { createRequire } = await import('node:module');
  const requireFromServer = createRequire(path.join(repoDir, 'apps/server/package.json'));
  requireFromServer('reflect-metadata');
  return import(path.join(serverDist, relative));
}

/** @returns {Promise<number>} a TCP port that was free a moment ago on 127.0.0.1 */
export async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * A flood in a worker thread of its own (so that it shares no event loop with the callers whose
 * latency a section measures): the worker runs until it gets a message, then posts its result.
 * @template T
 * @param {URL} script @param {unknown} workerData
 * @returns {{ stop: () => Promise<T> }}
 */
export function floodInWorker(script, workerData) {
  const worker = new Worker(script, { workerData });
  /** @type {Promise<T>} */
  const finished = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const result = await finished;
      await worker.terminate();
      return result;
    },
  };
}
