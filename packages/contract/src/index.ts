export * from './limits.js';
export * from './rules.js';
export * from './health.js';
export * from './errors.js';
export * from './auth.js';
export * from './paths.js';
