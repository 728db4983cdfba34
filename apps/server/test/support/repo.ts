import { fileURLToPath } from 'node:url';

/** The repository root, where `npm run portal` and the built service live. */
export const REPO_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
export const SERVER_DIST = fileURLToPath(new URL('../../dist', import.meta.url));
