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
