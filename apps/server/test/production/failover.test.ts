import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiPaths, enrollResponseSchema } from '@callsign/contract';
import type { DatabaseHandle } from '../../src/db/connection.js';
import type { ScratchDatabase } from '../../src/db/test-engines.testing.js';
import { hashCode } from '../../src/modules/auth/codes.js';
import { insertInviteCode } from '../../src/modules/invites/repository.js';
import { callApi, type ApiTarget } from '../support/api-client.js';
import { HOST, MTLS_HOST, postgresEngine, startDeployment, type Deployment } from './deployment.js';

/**
 * An instance dies (SIGKILL, no shutdown) in the middle of a burst of enrollments through
 * nginx: every enrollment that was answered 200 is in the database as answered, and the other
 * instance goes on serving.
 */

const postgres = postgresEngine();
const BURST = 40;
const KILL_AFTER = 10;
const CONCURRENCY = 4;
const INVITE = 'SURVIVE7';

interface Outcome {
  callsign: string;
  status: number | 'connection error';
  approvecode?: string;
  /** Started once the killed instance had exited. */
  startedAfterKill: boolean;
}

describe.skipIf(postgres === undefined)('an instance killed during a burst', () => {
  let database: ScratchDatabase;
  let deployment: Deployment;
  let handle: DatabaseHandle;
  let target: ApiTarget;

  beforeAll(async () => {
    if (postgres === undefined) return;
    database = await postgres.createScratchDatabase();
    deployment = await startDeployment(database);
    handle = database.open();
    await insertInviteCode(handle.db, { code: INVITE, createdAt: Date.now(), ownerCallsign: null });
    const chainPem = await readFile(deployment.chainFile, 'utf8');
    target = {
      port: deployment.nginx.port,
      chainPem,
      hostOf: (face) => (face === 'mtls' ? MTLS_HOST : HOST),
    };
  });

  afterAll(async () => {
    await (handle as DatabaseHandle | undefined)?.close();
    await (deployment as Deployment | undefined)?.destroy();
    await (database as ScratchDatabase | undefined)?.drop();
  });

  it('loses no enrollment answered 200, and the survivor keeps serving', async () => {
    const [, victim] = deployment.instances;
    if (victim === undefined) throw new Error('two instances');
    const outcomes: Outcome[] = [];
    let next = 0;
    let answered = 0;
    let inFlight = 0;
    let killed = false;
    let dead = false;
    let inFlightAtKill = 0;

    const enrollOne = async (callsign: string): Promise<Outcome> => {
      const startedAfterKill = dead;
      try {
        const answer = await callApi(target, 'public', 'POST', apiPaths.enroll, {
          json: { callsign, invite_code: INVITE },
        });
        if (answer.status !== 200) return { callsign, status: answer.status, startedAfterKill };
        const { approvecode } = enrollResponseSchema.parse(answer.json());
        return { callsign, status: 200, approvecode, startedAfterKill };
      } catch {
        return { callsign, status: 'connection error', startedAfterKill };
      }
    };

    const worker = async () => {
      while (next < BURST) {
        const callsign = `Burst${next}`;
        next += 1;
        inFlight += 1;
        const outcome = await enrollOne(callsign);
        inFlight -= 1;
        outcomes.push(outcome);
        if (outcome.status === 200) answered += 1;
        if (!killed && answered >= KILL_AFTER) {
          killed = true;
          inFlightAtKill = inFlight;
          victim.child.kill('SIGKILL');
          await victim.exited;
          dead = true;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(killed).toBe(true);
    // It died with requests under way, after serving enrollments of the burst itself.
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(victim.output()).toContain(apiPaths.enroll);
    expect(victim.child.signalCode).toBe('SIGKILL');

    const ok = outcomes.filter((outcome) => outcome.status === 200);
    const rows = await handle.db
      .selectFrom('enrollments')
      .innerJoin('members', 'members.callsign', 'enrollments.callsign')
      .select(['enrollments.callsign', 'enrollments.approval_code_hash', 'members.status'])
      .execute();
    const stored = new Map(rows.map((row) => [row.callsign, row]));
    for (const outcome of ok) {
      expect(stored.get(outcome.callsign), outcome.callsign).toMatchObject({
        approval_code_hash: hashCode(outcome.approvecode ?? ''),
        status: 'pending',
      });
    }
    // Requests started once the instance was gone all reached the survivor (nginx passes a
    // request on when it cannot connect, POST included).
    const afterKill = outcomes.filter((outcome) => outcome.startedAfterKill);
    expect(afterKill.length).toBeGreaterThan(0);
    expect(afterKill.map((outcome) => outcome.status)).toEqual(afterKill.map(() => 200));

    for (let call = 0; call < 4; call += 1) {
      const health = await callApi(target, 'public', 'GET', apiPaths.healthcheck);
      expect(health.status).toBe(200);
    }
    const later = await callApi(target, 'public', 'POST', apiPaths.enroll, {
      json: { callsign: 'AfterBurst', invite_code: INVITE },
    });
    expect(later.status).toBe(200);
  });
});
