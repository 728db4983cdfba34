import { setImmediate } from 'node:timers/promises';
import { sql, type NotNull, type Selectable } from 'kysely';
import type { CertificatePurpose, IssuedCertificatesTable } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { callsignIn } from '../people/callsign.js';

export interface IssuedCertificate {
  serial: string;
  /** The CN: a member's callsign, or the server name for `server` certificates. */
  callsign: string;
  purpose: CertificatePurpose;
  notBefore: number;
  notAfter: number;
  issuedAt: number;
  revokedAt: number | null;
  revocationReason: string | null;
  /** The device a `tak-enroll` certificate was enrolled from; null for other purposes. */
  clientUid: string | null;
  /** The admin whose code the key was minted through; null for the member's own. */
  madeBy: string | null;
  /** When an OCSP request last asked about it (presence.ts), and from which address. */
  lastCheckedAt: number | null;
  lastCheckedFrom: string | null;
  /** Which issuing CA signed it (1 the CA directory's, n ≥ 2 a rollover's). */
  caGeneration: number;
}

export interface RevokedCertificate {
  serial: string;
  revokedAt: number;
  reason: string | null;
}

/** Changes whenever a certificate is revoked; equal stamps mean an unchanged revocation list. */
export interface RevocationStamp {
  revokedCount: number;
  lastRevokedAt: number | null;
}

export type NewCertificate = Omit<
  IssuedCertificate,
  | 'revokedAt'
  | 'revocationReason'
  | 'clientUid'
  | 'madeBy'
  | 'lastCheckedAt'
  | 'lastCheckedFrom'
  | 'caGeneration'
> & {
  clientUid?: string | null;
  madeBy?: string | null;
  /** As TAK Server writes it (ca/fingerprint.ts). */
  sha256Fingerprint?: string | null;
  /** Which issuing CA signed it (1 when not given: the CA directory's). */
  caGeneration?: number;
};

/** A member's certificates: every purpose but `server`, the callsign in any case. */
function memberCertificatesOf(executor: Executor, callsign: string) {
  return executor
    .selectFrom('issued_certificates')
    .where((eb) => callsignIn(eb, 'callsign', callsign))
    .where('purpose', '!=', 'server');
}

export async function recordIssuedCertificate(
  executor: Executor,
  certificate: NewCertificate,
): Promise<void> {
  await executor
    .insertInto('issued_certificates')
    .values({
      serial: certificate.serial,
      callsign: certificate.callsign,
      purpose: certificate.purpose,
      not_before: certificate.notBefore,
      not_after: certificate.notAfter,
      issued_at: certificate.issuedAt,
      client_uid: certificate.clientUid ?? null,
      made_by: certificate.madeBy ?? null,
      sha256_fingerprint: certificate.sha256Fingerprint ?? null,
      ca_generation: certificate.caGeneration ?? 1,
    })
    .execute();
}

/**
 * When the member's certificates issued after `since` were issued (any purpose but `server`,
 * revoked or not), newest first, at most `limit` of them: enough to tell whether an hourly limit
 * of `limit` is reached and when the oldest of them leaves the window.
 */
export async function recentIssuanceTimes(
  executor: Executor,
  callsign: string,
  since: number,
  limit: number,
): Promise<number[]> {
  const rows = await memberCertificatesOf(executor, callsign)
    .select('issued_at')
    .where('issued_at', '>', since)
    .orderBy('issued_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.issued_at);
}

/** When the member's first certificate was issued (any purpose but `server`, revoked or not). */
/** Every certificate recorded, of any purpose, revoked or not. */
export async function countIssuedCertificates(executor: Executor): Promise<number> {
  const row = await executor
    .selectFrom('issued_certificates')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function firstIssuanceTime(
  executor: Executor,
  callsign: string,
): Promise<number | undefined> {
  const row = await memberCertificatesOf(executor, callsign)
    .select((eb) => eb.fn.min('issued_at').as('first'))
    .executeTakeFirst();
  return row?.first ?? undefined;
}

export async function findCertificateBySerial(
  executor: Executor,
  serial: string,
): Promise<IssuedCertificate | undefined> {
  const row = await executor
    .selectFrom('issued_certificates')
    .selectAll()
    .where('serial', '=', serial)
    .executeTakeFirst();
  return row && toCertificate(row);
}

/** Every key of a member (any purpose but `server`), revoked or not, newest first. */
export async function listMemberCertificates(
  executor: Executor,
  callsign: string,
): Promise<IssuedCertificate[]> {
  const rows = await memberCertificatesOf(executor, callsign)
    .selectAll()
    .orderBy('issued_at', 'desc')
    .orderBy('serial')
    .execute();
  return rows.map(toCertificate);
}

/**
 * The serials of a member's live keys at `now` (unrevoked and unexpired, any purpose but
 * `server`), oldest issuance first: the ones a bound on keys counts and supersedes in order.
 */
export async function liveCertificates(
  executor: Executor,
  callsign: string,
  now: number,
): Promise<{ serial: string; purpose: CertificatePurpose }[]> {
  return memberCertificatesOf(executor, callsign)
    .select(['serial', 'purpose'])
    .where('revoked_at', 'is', null)
    .where('not_after', '>', now)
    .orderBy('issued_at')
    .orderBy('serial')
    .execute();
}

/**
 * Active members whose newest unrevoked key (the latest `not_after` of any purpose but
 * `server`) ends at or before `until`, soonest first. Members with no unrevoked key are not
 * listed: they have nothing to renew.
 */
export async function membersWithKeysEndingBy(
  executor: Executor,
  until: number,
): Promise<{ callsign: string; expiresAt: number }[]> {
  const rows = await executor
    .selectFrom('issued_certificates')
    .innerJoin('members', 'members.callsign', 'issued_certificates.callsign')
    .select(['members.callsign', (eb) => eb.fn.max('not_after').as('expires_at')])
    .where('members.status', '=', 'active')
    .where('issued_certificates.purpose', '!=', 'server')
    .where('issued_certificates.revoked_at', 'is', null)
    .groupBy('members.callsign')
    .having((eb) => eb.fn.max('not_after'), '<=', until)
    .orderBy('expires_at')
    .orderBy('members.callsign')
    .execute();
  return rows.map((row) => ({ callsign: row.callsign, expiresAt: row.expires_at }));
}

/** The certificate issued last to `callsign` (any case), revoked or not. */
export async function newestCertificateOf(
  executor: Executor,
  callsign: string,
): Promise<IssuedCertificate | undefined> {
  const row = await executor
    .selectFrom('issued_certificates')
    .selectAll()
    .where((eb) => callsignIn(eb, 'callsign', callsign))
    .orderBy('issued_at', 'desc')
    .orderBy('serial', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && toCertificate(row);
}

/** Revokes one certificate; false when it is unknown or was already revoked. */
export async function revokeCertificate(
  executor: Executor,
  serial: string,
  revocation: { at: number; reason: string | null },
): Promise<boolean> {
  const result = await executor
    .updateTable('issued_certificates')
    .set({ revoked_at: revocation.at, revocation_reason: revocation.reason })
    .where('serial', '=', serial)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Revokes every unrevoked certificate of `callsign` (any case), or with `liveOnly` only those not
 * expired at the revocation's time; returns them by serial.
 */
export async function revokeCertificatesOf(
  executor: Executor,
  callsign: string,
  revocation: { at: number; reason: string | null; liveOnly?: boolean },
): Promise<{ serial: string; purpose: CertificatePurpose }[]> {
  let update = executor
    .updateTable('issued_certificates')
    .set({ revoked_at: revocation.at, revocation_reason: revocation.reason })
    .where((eb) => callsignIn(eb, 'callsign', callsign))
    .where('revoked_at', 'is', null);
  if (revocation.liveOnly === true) update = update.where('not_after', '>', revocation.at);
  const rows = await update.returning(['serial', 'purpose']).execute();
  return rows.sort((a, b) => (a.serial < b.serial ? -1 : a.serial > b.serial ? 1 : 0));
}

/**
 * Every revoked certificate, oldest revocation first: the entries of the CRL. Read in pages of
 * `pageSize` by (revoked_at, serial), the event loop turning between them: SQLite's driver is
 * synchronous, and one read of 100,000 rows held the loop for a quarter of a second. Revocations
 * are never undone and a new one sorts last, so the pages fit together whatever happens between.
 */
export async function listRevokedCertificates(
  executor: Executor,
  pageSize = 2_000,
  /** Only the keys of this issuing CA (its CRL); all when not given. */
  generation?: number,
): Promise<RevokedCertificate[]> {
  const all: RevokedCertificate[] = [];
  let after: { revokedAt: number; serial: string } | undefined;
  for (;;) {
    const from = after;
    const rows = await executor
      .selectFrom('issued_certificates')
      .select(['serial', 'revoked_at', 'revocation_reason'])
      .where('revoked_at', 'is not', null)
      .$if(generation !== undefined, (query) => query.where('ca_generation', '=', generation ?? 1))
      .$if(from !== undefined, (query) =>
        query.where(
          sql<boolean>`(revoked_at, serial) > (${from?.revokedAt ?? 0}, ${from?.serial ?? ''})`,
        ),
      )
      .$narrowType<{ revoked_at: NotNull }>()
      .orderBy('revoked_at')
      .orderBy('serial')
      .limit(pageSize)
      .execute();
    for (const row of rows) {
      all.push({ serial: row.serial, revokedAt: row.revoked_at, reason: row.revocation_reason });
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < pageSize) return all;
    after = { revokedAt: last.revoked_at, serial: last.serial };
    await setImmediate();
  }
}

/**
 * Cheap to ask every second: revocations are never undone, so the count only grows and the
 * stamp changes with every revocation, on whichever instance it happened.
 */
export async function revocationStamp(executor: Executor): Promise<RevocationStamp> {
  const row = await executor
    .selectFrom('issued_certificates')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('revoked_count'),
      eb.fn.max('revoked_at').as('last_revoked_at'),
    ])
    .where('revoked_at', 'is not', null)
    .executeTakeFirstOrThrow();
  return {
    revokedCount: Number(row.revoked_count),
    lastRevokedAt: row.last_revoked_at,
  };
}

function toCertificate(row: Selectable<IssuedCertificatesTable>): IssuedCertificate {
  return {
    serial: row.serial,
    callsign: row.callsign,
    purpose: row.purpose,
    notBefore: row.not_before,
    notAfter: row.not_after,
    issuedAt: row.issued_at,
    revokedAt: row.revoked_at,
    revocationReason: row.revocation_reason,
    clientUid: row.client_uid,
    madeBy: row.made_by,
    lastCheckedAt: row.last_checked_at,
    lastCheckedFrom: row.last_checked_from,
    caGeneration: row.ca_generation,
  };
}

/**
 * Records that an OCSP request asked about `serial` at `at` from `address`, unless that was
 * already recorded at or after `notBefore` (another instance wrote it within the minute).
 * Returns the key's owner when the row changed, undefined when nothing was written.
 */
export async function markKeyChecked(
  executor: Executor,
  serial: string,
  check: { at: number; address: string | null; notBefore: number },
): Promise<string | undefined> {
  const rows = await executor
    .updateTable('issued_certificates')
    .set({ last_checked_at: check.at, last_checked_from: check.address })
    .where('serial', '=', serial)
    .where('purpose', '!=', 'server')
    .where((eb) =>
      eb.or([eb('last_checked_at', 'is', null), eb('last_checked_at', '<', check.notBefore)]),
    )
    .returning('callsign')
    .execute();
  return rows[0]?.callsign;
}

export type RevocationFetchKind = 'ocsp' | 'crl';

export interface RevocationFetch {
  at: number;
  address: string | null;
}

/**
 * Records the last fetch of `kind` (an OCSP request, a CRL download), unless one was recorded at
 * or after `notBefore`. True when the row was written.
 */
export async function recordRevocationFetch(
  executor: Executor,
  kind: RevocationFetchKind,
  fetch: RevocationFetch & { notBefore: number },
): Promise<boolean> {
  const rows = await executor
    .insertInto('revocation_fetches')
    .values({ kind, fetched_at: fetch.at, address: fetch.address })
    .onConflict((conflict) =>
      conflict
        .column('kind')
        .doUpdateSet({ fetched_at: fetch.at, address: fetch.address })
        .where('revocation_fetches.fetched_at', '<', fetch.notBefore),
    )
    .returning('kind')
    .execute();
  return rows.length > 0;
}

/** The last recorded fetch of each kind. */
export async function lastRevocationFetches(
  executor: Executor,
): Promise<Partial<Record<RevocationFetchKind, RevocationFetch>>> {
  const rows = await executor.selectFrom('revocation_fetches').selectAll().execute();
  return Object.fromEntries(
    rows.map((row) => [row.kind, { at: row.fetched_at, address: row.address }]),
  );
}

/** An issuing CA a rollover made (table `ca_issuers`, migration 0013). */
export interface StoredCaIssuer {
  generation: number;
  certificatePem: string;
  keyPem: string;
  begunAt: number;
  begunBy: string;
  renewBy: number;
  finishedAt: number | null;
}

/** Every issuing CA rollovers made, oldest first. */
export async function listCaIssuers(executor: Executor): Promise<StoredCaIssuer[]> {
  const rows = await executor.selectFrom('ca_issuers').selectAll().orderBy('generation').execute();
  return rows.map((row) => ({
    generation: row.generation,
    certificatePem: row.certificate_pem,
    keyPem: row.key_pem,
    begunAt: row.begun_at,
    begunBy: row.begun_by,
    renewBy: row.renew_by,
    finishedAt: row.finished_at,
  }));
}

/** Cheap to ask on every mint: changes when a rollover begins or finishes, on any instance. */
export async function caIssuersStamp(executor: Executor): Promise<string> {
  const row = await executor
    .selectFrom('ca_issuers')
    .select((eb) => [
      eb.fn.max<number | null>('generation').as('generation'),
      eb.fn.count('finished_at').as('finished'),
    ])
    .executeTakeFirstOrThrow();
  return `${String(row.generation ?? 1)}/${String(row.finished)}`;
}

/**
 * Records a new issuing CA. The generation is the primary key: of two rollovers begun at once
 * only one inserts generation n + 1, the other fails (UniqueViolation) and writes nothing.
 */
export async function insertCaIssuer(
  executor: Executor,
  issuer: Omit<StoredCaIssuer, 'finishedAt'>,
): Promise<void> {
  await executor
    .insertInto('ca_issuers')
    .values({
      generation: issuer.generation,
      certificate_pem: issuer.certificatePem,
      key_pem: issuer.keyPem,
      begun_at: issuer.begunAt,
      begun_by: issuer.begunBy,
      renew_by: issuer.renewBy,
      finished_at: null,
    })
    .execute();
}

/** Marks the rollover to `generation` finished; false when it already was (another process). */
export async function finishCaIssuer(
  executor: Executor,
  generation: number,
  at: number,
): Promise<boolean> {
  const result = await executor
    .updateTable('ca_issuers')
    .set({ finished_at: at })
    .where('generation', '=', generation)
    .where('finished_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A live key of an older issuing CA: who holds it, for what, until when. */
export interface KeyOnOlderCa {
  serial: string;
  callsign: string;
  purpose: CertificatePurpose;
  notAfter: number;
  /** Whether its holder has since been given a live key of the same purpose by a newer CA. */
  renewed: boolean;
}

/**
 * The unexpired, unrevoked member keys (not `server` certificates) of issuing CAs older than
 * `generation` at `now`,
 * each with whether its holder has renewed it: holds a live key of the same purpose from
 * `generation` or later. Ordered by callsign, then purpose.
 */
export async function liveKeysBefore(
  executor: Executor,
  generation: number,
  now: number,
): Promise<KeyOnOlderCa[]> {
  const rows = await executor
    .selectFrom('issued_certificates as old')
    .select([
      'old.serial',
      'old.callsign',
      'old.purpose',
      'old.not_after',
      (eb) =>
        eb
          .exists(
            eb
              .selectFrom('issued_certificates as renewal')
              .select('renewal.serial')
              .where(sql<boolean>`lower(renewal.callsign) = lower(old.callsign)`)
              .whereRef('renewal.purpose', '=', 'old.purpose')
              .where('renewal.ca_generation', '>=', generation)
              .where('renewal.revoked_at', 'is', null)
              .where('renewal.not_after', '>', now),
          )
          .as('renewed'),
    ])
    .where('old.ca_generation', '<', generation)
    .where('old.purpose', '!=', 'server')
    .where('old.revoked_at', 'is', null)
    .where('old.not_after', '>', now)
    .orderBy(sql`lower(old.callsign)`)
    .orderBy('old.purpose')
    .orderBy('old.serial')
    .execute();
  return rows.map((row) => ({
    serial: row.serial,
    callsign: row.callsign,
    purpose: row.purpose,
    notAfter: row.not_after,
    renewed: Boolean(row.renewed),
  }));
}

/** The last moment a key of issuing CA `generation` would have expired; undefined: none issued. */
export async function lastExpiryOf(
  executor: Executor,
  generation: number,
): Promise<number | undefined> {
  const row = await executor
    .selectFrom('issued_certificates')
    .select((eb) => eb.fn.max<number | null>('not_after').as('last'))
    .where('ca_generation', '=', generation)
    .executeTakeFirstOrThrow();
  return row.last ?? undefined;
}

/** Revokes the given serials (those not revoked already); returns what was revoked. */
export async function revokeSerials(
  executor: Executor,
  serials: readonly string[],
  revocation: { at: number; reason: string },
): Promise<{ serial: string; purpose: CertificatePurpose }[]> {
  if (serials.length === 0) return [];
  return executor
    .updateTable('issued_certificates')
    .set({ revoked_at: revocation.at, revocation_reason: revocation.reason })
    .where('serial', 'in', serials)
    .where('revoked_at', 'is', null)
    .returning(['serial', 'purpose'])
    .execute();
}
