import type { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { Portal } from '../../portal.js';
import { appendAuditEvent } from '../../modules/audit/service.js';
import { truststoreCertificates } from '../../tak/truststore.js';
import { probeTcp, probeTls, type TlsProbeOptions, type TlsProbeResult } from './tls-probe.js';
import {
  createTestMember,
  identityOf,
  loadRevokedTestKey,
  retireTestMember,
  saveRevokedTestKey,
  type RevokedTestKey,
  type TestMember,
} from './test-member.js';

export interface TakCheckOptions {
  host: string;
  /** Connect here instead of resolving `host`. */
  address?: string | undefined;
  port: number;
  timeoutMs: number;
  /**
   * A key of a CA the TAK Server trusted before the portal (its own admin.p12, an earlier user),
   * to see that adding the portal locked nobody out: `--existing-client PFX[:PASSWORD]`.
   */
  existingClient?: { file: string; pfx: Buffer; passphrase: string } | undefined;
}

export type CheckStatus = 'OK' | 'FAIL' | 'SKIP';

export interface CheckLine {
  status: CheckStatus;
  name: string;
  detail: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const SERVER_CHECKS = ['server certificate', 'server name', 'chain'];
const REVOKED_AT_ONCE = 'revoked key refused at once';
const EXISTING_CLIENT = 'existing CA client accepted';
const MEMBER_CHECKS = [
  'member certificate accepted',
  REVOKED_AT_ONCE,
  'revoked certificate refused',
  EXISTING_CLIENT,
];

function where(options: TakCheckOptions): string {
  const at = options.address === undefined ? '' : ` at ${options.address}`;
  return `${options.host}:${options.port}${at}`;
}

const date = (value: Date | number) => new Date(value).toISOString().slice(0, 10);

function describeCertificate(certificate: X509Certificate): string {
  const oneLine = (name: string) => name.split('\n').join(', ');
  return (
    `${oneLine(certificate.subject)}, issued by ${oneLine(certificate.issuer)}, ` +
    `SAN ${certificate.subjectAltName ?? 'none'}, valid until ${date(Date.parse(certificate.validTo))}`
  );
}

/**
 * What a refusal of a fresh, valid member certificate most likely means. A JVM (TAK Server)
 * answers "certificate unknown" for every failed PKIX check; OpenSSL names the cause.
 */
function refusalHint(reason: string): string {
  if (/unknown ca|unsupported certificate/.test(reason)) {
    return "the server does not trust the portal's CA: import both certificates of /ca/ca.pem into its truststore";
  }
  // The closing quote keeps "bad certificate status response" out.
  if (/certificate unknown|bad certificate"/.test(reason)) {
    return (
      "TAK Server could not validate it: its truststore lacks the portal's CAs (both, issuing " +
      'and root), or its CRL is past nextUpdate, which refuses every client (run ' +
      "refresh-crl.sh); TAK Server's log names the reason"
    );
  }
  if (/certificate expired|bad certificate status response/.test(reason)) {
    return "the server's CRL is past its nextUpdate, which refuses every client: run refresh-crl.sh";
  }
  if (/protocol version/.test(reason)) {
    return 'the server does not offer TLS 1.2, which tak-check needs to see its verdict';
  }
  return "see the server's log (TAK Server: takserver-messaging.log) for the reason";
}

/**
 * The readiness check an operator runs against their TAK Server (docs/tak.md): the
 * server's certificate, whether it chains to the truststore the packages carry, and the server's
 * verdict on a fresh member certificate, on that same certificate revoked a moment later (no
 * restart in between: only OCSP can refuse it), on a certificate revoked in an earlier run, and
 * on a client of the CA the server trusted before. `report` gets one line per check; the answer
 * is the number of failed checks.
 */
export async function runTakCheck(
  portal: Portal,
  options: TakCheckOptions,
  report: (line: CheckLine) => void,
  now: () => Date = () => new Date(),
): Promise<number> {
  let failures = 0;
  const line = (status: CheckStatus, name: string, detail: string) => {
    if (status === 'FAIL') failures += 1;
    report({ status, name, detail });
  };
  const { config } = portal;
  const trusted = await truststoreCertificates({
    pemFile: config.takTruststorePemFile,
    caChainPem: portal.certificates.trustPem,
  });
  const trustLabel =
    config.takTruststorePemFile === undefined
      ? "the portal's CA chain"
      : `PORTAL_TAK_TRUSTSTORE_PEM (${config.takTruststorePemFile})`;
  // Nothing listening: said without making a test member (each one adds a CRL entry).
  const unreachable = await probeTcp(
    options.address ?? options.host,
    options.port,
    options.timeoutMs,
  );
  if (unreachable !== undefined) {
    line('FAIL', 'connect', `no connection to ${where(options)}: ${unreachable}`);
    for (const name of [...SERVER_CHECKS, ...MEMBER_CHECKS]) line('SKIP', name, 'no connection');
    return failures;
  }
  const revokedKey = await loadRevokedTestKey(portal, now());
  const started = now();
  let member: TestMember | undefined;
  let retired = false;
  try {
    member = await createTestMember(portal, started, options);
    const probe = (identity: TlsProbeOptions['client'], maxVersion?: 'TLSv1.2') =>
      probeTls({ ...options, trusted, client: identity, ...(maxVersion ? { maxVersion } : {}) });

    const first = await probe(identityOf(member.issued));
    checkServer(first, options, trustLabel, started, line);
    if (first.kind === 'unreachable') {
      for (const name of MEMBER_CHECKS) line('SKIP', name, 'no TLS connection');
    } else {
      const accepted = await probe(identityOf(member.issued), 'TLSv1.2');
      checkAccepted(accepted, member, line);
      const validAccepted = accepted.kind === 'connected';
      // Revoked now, and tried again at once: the server has not restarted in between.
      await retireTestMember(portal, member.callsign);
      retired = true;
      const revokedAt = Date.now();
      const again = await probe(identityOf(member.issued), 'TLSv1.2');
      const refusedAtOnce = checkRevokedAtOnce(
        again,
        member,
        Date.now() - revokedAt,
        validAccepted,
        line,
      );
      await checkRevoked(
        revokedKey,
        validAccepted,
        refusedAtOnce,
        (identity) => probe(identity, 'TLSv1.2'),
        line,
      );
      if (options.existingClient === undefined) {
        line('SKIP', EXISTING_CLIENT, 'no --existing-client PFX[:PASSWORD] given');
      } else {
        const { file, pfx, passphrase } = options.existingClient;
        checkExistingClient(await probe({ pfx, passphrase }, 'TLSv1.2'), file, line);
      }
    }
  } finally {
    if (member !== undefined) {
      if (!retired) await retireTestMember(portal, member.callsign);
      // The first run keeps its own (now revoked) test key for the refusal check of later runs.
      if (revokedKey === undefined) await saveRevokedTestKey(portal, member.issued);
    }
    await appendAuditEvent(portal.database.db, {
      at: now().getTime(),
      actor: 'cli',
      action: 'tak-check',
      target: member?.callsign ?? null,
      outcome: failures === 0 ? 'success' : 'failure',
      clientAddress: null,
      detail: { takHost: options.host, takPort: options.port, failures },
    });
  }
  return failures;
}

type Line = (status: CheckStatus, name: string, detail: string) => void;

/** connect, server certificate, server name, chain: from the first handshake. */
function checkServer(
  result: TlsProbeResult,
  options: TakCheckOptions,
  trustLabel: string,
  at: Date,
  line: Line,
): void {
  const where = `${options.host}:${options.port}${options.address === undefined ? '' : ` at ${options.address}`}`;
  if (result.kind === 'unreachable') {
    line('FAIL', 'connect', `no TLS connection to ${where}: ${result.reason}`);
    for (const name of ['server certificate', 'server name', 'chain'])
      line('SKIP', name, 'no connection');
    return;
  }
  line(
    'OK',
    'connect',
    result.kind === 'connected'
      ? `${result.protocol} to ${where}`
      : `TLS to ${where} (the handshake then ended: ${result.reason})`,
  );
  const peer = result.peer;
  if (peer === undefined) {
    for (const name of ['server certificate', 'server name', 'chain']) {
      line('SKIP', name, 'the server sent no certificate');
    }
    return;
  }
  const from = Date.parse(peer.validFrom);
  const until = Date.parse(peer.validTo);
  if (at.getTime() < from || at.getTime() > until) {
    line('FAIL', 'server certificate', `${describeCertificate(peer)}: not valid now`);
  } else {
    const left = Math.floor((until - at.getTime()) / DAY_MS);
    line('OK', 'server certificate', `${describeCertificate(peer)} (${left} days left)`);
  }
  const matches =
    isIP(options.host) === 0 ? peer.checkHost(options.host) : peer.checkIP(options.host);
  if (matches === undefined) {
    line(
      'FAIL',
      'server name',
      `the certificate is not valid for ${options.host} (TAK_HOST must be a name in its SAN)`,
    );
  } else {
    line('OK', 'server name', `the certificate is valid for ${options.host}`);
  }
  if (result.kind !== 'connected') {
    line('SKIP', 'chain', `not judged: the server ended the handshake first (${result.reason})`);
  } else if (result.authorized) {
    line('OK', 'chain', `chains to the truststore in the TAK packages (${trustLabel})`);
  } else {
    line(
      'FAIL',
      'chain',
      `does not chain to the truststore in the TAK packages (${trustLabel}): ` +
        `${result.authorizationError ?? 'not trusted'}; issue TAK Server's certificate with ` +
        'server-cert, or set PORTAL_TAK_TRUSTSTORE_PEM to its CA chain',
    );
  }
}

function checkAccepted(result: TlsProbeResult, member: TestMember, line: Line): void {
  const who = `${member.callsign} (serial ${member.issued.serial})`;
  if (result.kind === 'connected') {
    line('OK', 'member certificate accepted', `${who} in a mutual-TLS handshake`);
  } else if (result.kind === 'refused') {
    line(
      'FAIL',
      'member certificate accepted',
      `${who} refused with ${result.reason}: ${refusalHint(result.reason)}`,
    );
  } else {
    line('FAIL', 'member certificate accepted', `${who}: ${result.reason}`);
  }
}

/**
 * The run's own certificate, revoked a moment before this handshake. A JVM whose trust manager
 * has only CRL files (CoreConfig.xml's <crl crlFile>) read them once, when TAK Server started
 * (TAK-Product-Center/Server, src/takserver-core/src/main/java/com/bbn/marti/service/
 * SSLConfig.java, initTrust), so it accepts the key until the next restart; with
 * enableOCSP="true" on <tls> the same initTrust sets ocsp.enable and the JVM asks the portal's
 * OCSP responder on every handshake. Whether it was refused is the answer.
 */
function checkRevokedAtOnce(
  result: TlsProbeResult,
  member: TestMember,
  afterMs: number,
  validAccepted: boolean,
  line: Line,
): boolean {
  const who = `${member.callsign} (serial ${member.issued.serial}, revoked ${afterMs} ms before)`;
  if (result.kind === 'connected') {
    line(
      'FAIL',
      REVOKED_AT_ONCE,
      `revoked certificate accepted: ${who}. TAK Server checks revocation only against the CRL ` +
        'file it read when it started, so a revoked key gets in until its next restart: set ' +
        'enableOCSP="true" on <tls> in CoreConfig.xml (missing or false now) and restart it once; ' +
        "it then asks the portal's OCSP responder on every connection",
    );
    return false;
  }
  if (!validAccepted) {
    line('SKIP', REVOKED_AT_ONCE, `not meaningful: a valid member certificate is refused too`);
    return false;
  }
  if (result.kind === 'refused') {
    line('OK', REVOKED_AT_ONCE, `${who} refused with ${result.reason}, without a restart`);
    return true;
  }
  line('FAIL', REVOKED_AT_ONCE, `${who}: ${result.reason}`);
  return false;
}

/** A client of the CA the TAK Server trusted before the portal: adding the portal must keep it. */
function checkExistingClient(result: TlsProbeResult, file: string, line: Line): void {
  if (result.kind === 'connected') {
    line('OK', EXISTING_CLIENT, `${file} accepted: nothing locked out`);
  } else if (result.kind === 'refused') {
    line(
      'FAIL',
      EXISTING_CLIENT,
      `${file} refused with ${result.reason}: TAK Server's truststore must keep its own CA beside ` +
        "the portal's, and its <crl> entries must hold that CA's CRL too (a trusted CA without a " +
        'CRL the JVM can read refuses all its clients: "could not determine revocation status")',
    );
  } else {
    line('FAIL', EXISTING_CLIENT, `${file}: ${result.reason}`);
  }
}

async function checkRevoked(
  revokedKey: RevokedTestKey | undefined,
  validAccepted: boolean,
  refusedAtOnce: boolean,
  probe: (identity: RevokedTestKey['identity']) => Promise<TlsProbeResult>,
  line: Line,
): Promise<void> {
  const name = 'revoked certificate refused';
  if (revokedKey === undefined && refusedAtOnce) {
    line(
      'OK',
      name,
      'no certificate kept from an earlier run: the one revoked in this run was refused (above)',
    );
    return;
  }
  if (revokedKey === undefined) {
    line(
      'FAIL',
      name,
      'not checked yet: TAK Server reads its CRL when it starts, so it needs a test certificate ' +
        'revoked before then. This run keeps its test certificate (revoked now) for the next ' +
        "run: reload TAK Server's CRL (refresh-crl.sh) and run tak-check again",
    );
    return;
  }
  const who = `${revokedKey.callsign} (serial ${revokedKey.serial}, revoked ${new Date(revokedKey.revokedAt).toISOString()})`;
  const result = await probe(revokedKey.identity);
  if (result.kind === 'connected') {
    line(
      'FAIL',
      name,
      `revoked certificate accepted: ${who}. TAK Server does not check the portal's CRL, or ` +
        'has not reloaded it since: check <crl> in CoreConfig.xml and run refresh-crl.sh',
    );
  } else if (!validAccepted) {
    line('SKIP', name, `not meaningful: a valid member certificate is refused too (${who})`);
  } else if (result.kind === 'refused') {
    line('OK', name, `${who} refused with ${result.reason}`);
  } else {
    line('FAIL', name, `${who}: ${result.reason}`);
  }
}
