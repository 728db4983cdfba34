import { afterAll, afterEach, beforeAll } from 'vitest';
import { setupServer } from 'msw/node';

/** The mock API of the web tests; each test adds its handlers with `server.use`. */
export const server = setupServer();

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
