import { vi } from 'vitest';

/**
 * `lib/navigation` as every test sees it (setup.ts): jsdom cannot load another page, so a full
 * page load is a recorded call. One module, not a mock made per test file: in the fast tier the
 * files of a worker share their modules, and a page loaded by an earlier file keeps the
 * `reloadTo` it was first given.
 */
export const reloadTo = vi.fn<(path: string) => void>();
