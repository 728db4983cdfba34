// A fresh database on the throw-away PostgreSQL server that scripts/with-postgres.sh started.
import pg from 'pg';

/**
 * @param {string} url postgres://…/portal_test
 * @param {string} name the new database
 * @returns {Promise<string>} its URL
 */
export async function createPostgresDatabase(url, name) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name}`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * The engines a section measures: SQLite, and PostgreSQL when run.sh started a server for the run
 * (`PORTAL_TEST_POSTGRES_URL`).
 * @returns {{ name: string, url?: string }[]}
 */
export function benchEngines() {
  const url = process.env.PORTAL_TEST_POSTGRES_URL;
  return [{ name: 'SQLite' }, ...(url ? [{ name: 'PostgreSQL', url }] : [])];
}
