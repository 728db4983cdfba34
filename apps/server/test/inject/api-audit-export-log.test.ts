import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { testEngines } from '../../src/db/test-engines.testing.js';
import type { MemberKey } from '../support/member-fixtures.js';
import { portalOnScratchDatabase } from '../support/portal-on-engine.js';
import { forwardedBy, openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

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

  it('logs no error when the client stops the download', async () => {
    // Enough events (some 10 MB of CSV) that the export is still being read when the client
    // goes away.
    const db = portal.portal.database.db;
    for (let batch = 0; batch < 20; batch += 1) {
      const rows = Array.from({ length: 500 }, (_, index) => ({
        id: `0190a1b2-0000-7000-8000-${String(batch * 500 + index).padStart(12, '0')}`,
        occurred_at: 1_000 + batch * 500 + index,
        action: 'invite.create',
        target: 'x'.repeat(2_000),
        outcome: 'success' as const,
      }));
      await db.insertInto('audit_events').values(rows).execute();
    }
    await portal.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = portal.app.server.address() as AddressInfo;
    const headers = {
      host: portal.config.mtlsHost,
      ...forwardedBy(admin.certificatePem),
    };
    const errors = await errorsLoggedBy(async () => {
      await new Promise<void>((resolve, reject) => {
        const request = http.get({ host: '127.0.0.1', port, path: apiPaths.auditCsv, headers });
        request.on('response', (response) => {
          expect(response.statusCode).toBe(200);
          response.once('data', () => request.destroy());
        });
        request.on('error', reject);
        request.on('close', resolve);
      });
      // The server notices the closed connection and ends the pipeline.
      await sleep(1_000);
    });
    expect(errors).toEqual([]);
  });
});
