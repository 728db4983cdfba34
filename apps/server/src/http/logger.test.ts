import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loggerOptions } from './logger.js';

describe('loggerOptions', () => {
  const lines: string[] = [];
  const app = Fastify({ logger: loggerOptions('info', { write: (line) => lines.push(line) }) });

  afterEach(() => {
    lines.length = 0;
  });

  function lastLine(): Record<string, unknown> {
    return JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
  }

  it("keeps an error's code, which says what failed (ECONNREFUSED, SQLITE_BUSY)", () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    app.log.error({ err: error }, 'health check: database unreachable');
    expect(lastLine()).toMatchObject({ err: { code: 'ECONNREFUSED', type: 'Error' } });
  });

  it('leaves out the headers and fields that carry credentials', () => {
    app.log.info(
      {
        req: { headers: { authorization: 'Bearer SECRET1', cookie: 'session=SECRET2' } },
        session: { jwt: 'SECRET3', token: 'SECRET4' },
      },
      'request',
    );
    expect(lines.at(-1)).not.toMatch(/SECRET/);
    expect(lastLine()).toMatchObject({ session: { jwt: '[redacted]', token: '[redacted]' } });
  });
});
