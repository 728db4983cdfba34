import { afterAll, afterEach, beforeAll } from 'vitest';
import { server } from '../../test/server';

/** The mock API for a test file: unhandled calls fail the test, handlers reset after each. */
export function listenWithMockApi(): void {
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' });
  });
  afterEach(() => {
    server.resetHandlers();
  });
  afterAll(() => {
    server.close();
  });
}
