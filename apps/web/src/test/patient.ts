import { configure, getConfig } from '@testing-library/react';
import { afterAll, beforeAll, vi } from 'vitest';

/**
 * For a file whose pages wait on several calls (the guard's sign-in check, a lazy chunk, each
 * section's own query): `findBy…` and `waitFor` wait up to `ms` instead of the default second,
 * and a test may take three times that, which a busy 2-core machine needs. Restored after the
 * file, which shares its worker with others.
 */
export function waitLongerInThisFile(ms = 10_000): void {
  const before = getConfig().asyncUtilTimeout;
  // A test's time limit is read as it is declared: set before the file declares its tests.
  vi.setConfig({ testTimeout: 3 * ms });
  beforeAll(() => {
    configure({ asyncUtilTimeout: ms });
  });
  afterAll(() => {
    configure({ asyncUtilTimeout: before });
    vi.resetConfig();
  });
}
