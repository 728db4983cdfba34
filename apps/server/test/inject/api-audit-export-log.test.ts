import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

// An audit export logs an error only when it fails, and then with the cause: a complete CSV is
// no alert (issue 25, finding 8).

const PINO_ERROR = 50;

describe.each(testEngines())('the audit export’s log on $name', (engine) => {
  let portal: InjectPortal;
  let admin: MemberKey;
  const lines: string[] = [];

  portalOnScratchDatabase(engine, async (env) => {
    portal = await openInjectPortal({
      env: { ...env, PORTAL_LOG_LEVEL: 'info' },
      logStream: { write: (line) => lines.push(line) },
    });
    admin = await portal.addMember('Ledger1', { roles: ['admin'] });
    return portal;
  });

  /** The log entries of level error or above written while `act` ran. */
  async function errorsLoggedBy(act: () => Promise<unknown>) {
    lines.length = 0;
    await act();
    // The pipeline's callback runs after the answer's last byte.
    await new Promise((resolve) => setImmediate(resolve));
    return lines
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown })
      .filter((entry) => entry.level >= PINO_ERROR);
  }

  const exportCsv = () => portal.api('mtls', 'GET', apiPaths.auditCsv, { key: admin });

  it('logs no error for a complete export', async () => {
    const errors = await errorsLoggedBy(async () => {
      const answer = await exportCsv();
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).toContain('id,time,actor,action');
    });
    expect(errors).toEqual([]);
  });

  it('logs a failure half-way through with its error', async () => {
    // A row whose detail is no JSON: reading it fails after the answer has begun.
    await sql`insert into audit_events (id, occurred_at, action, outcome, detail)
      values ('0190a1b2-0000-7000-8000-00000000dead', 1, 'broken', 'success', '{')`.execute(
      portal.portal.database.db,
    );
    const errors = await errorsLoggedBy(exportCsv);
    const failures = errors.filter((entry) => entry.msg === 'audit export failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]?.err).toMatchObject({ type: 'SyntaxError', message: /JSON/ });
  });
});
