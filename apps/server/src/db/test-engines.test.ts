import { describe, expect, it } from 'vitest';
import { testEngines } from './test-engines.testing.js';

describe('testEngines', () => {
  it('gives SQLite alone without a PostgreSQL URL', () => {
    expect(testEngines({}).map((engine) => engine.name)).toEqual(['sqlite']);
  });

  it('adds PostgreSQL when a URL is given', () => {
    const env = { PORTAL_TEST_POSTGRES_URL: 'postgres://postgres@127.0.0.1:5432/portal_test' };
    expect(testEngines(env).map((engine) => engine.name)).toEqual(['sqlite', 'postgres']);
  });

  it('fails, rather than skipping PostgreSQL, when PostgreSQL is required but not given', () => {
    expect(() => testEngines({ PORTAL_REQUIRE_POSTGRES: '1' })).toThrow(/PORTAL_TEST_POSTGRES_URL/);
  });
});
