import type { PeerCertificate, TLSSocket } from 'node:tls';
import { normalizeSerial } from '../ca/serial.js';

/**
 * What the mTLS face knows about the certificate a connection presented. TLS has already checked
 * the chain against the portal's CA and the validity dates at handshake time (`authorized`);
 * this adds what must be checked on every request: still unexpired on a long-lived connection,
 * issued and recorded by this portal, and not revoked since (docs/api.md).
 */
export type ClientCertificateResult =
  | { status: 'absent' }
  | { status: 'rejected'; reason: string }
  | { status: 'verified'; callsign: string; serial: string; notAfter: Date; madeBy: string | null };

export interface RecordedCertificate {
  callsign: string;
  revokedAt: number | null;
  /** The admin whose code the certificate was minted through; null for the member's own. */
  madeBy?: string | null;
  /**
   * A server certificate (`server-cert`, the faces' own): it carries clientAuth too, for a TAK
   * Server's federation, but is never a member's key.
   */
  server?: boolean;
}

/** Looks a serial up in the record of issued certificates (lower-case hex, no leading zeros). */
export type CertificateLookup = (serial: string) => Promise<RecordedCertificate | undefined>;

/** What the per-request checks need from a certificate whose chain is already verified. */
export interface PeerSummary {
  commonName: string | undefined;
  serial: string;
  notAfter: Date;
}

const peers = new WeakMap<TLSSocket, PeerSummary | null>();

function summarize(peer: PeerCertificate): PeerSummary {
  const cn = peer.subject.CN;
  return {
    commonName: Array.isArray(cn) ? undefined : cn,
    serial: normalizeSerial(peer.serialNumber),
    notAfter: new Date(peer.valid_to),
  };
}

/** The peer certificate is fixed for the life of a connection, so it is parsed once. */
function peerOf(socket: TLSSocket): PeerSummary | null {
  let summary = peers.get(socket);
  if (summary === undefined) {
    const peer = socket.getPeerCertificate();
    summary = Object.keys(peer).length === 0 ? null : summarize(peer);
    peers.set(socket, summary);
  }
  return summary;
}

export async function verifyClientCertificate(
  socket: TLSSocket,
  lookup: CertificateLookup,
  now: Date = new Date(),
): Promise<ClientCertificateResult> {
  const peer = peerOf(socket);
  if (peer === null) return { status: 'absent' };
  if (!socket.authorized) {
    const reason = socket.authorizationError;
    return { status: 'rejected', reason: typeof reason === 'string' ? reason : reason.message };
  }
  return checkAgainstRecord(peer, lookup, now);
}

/**
 * The checks of every request, after the chain: unexpired now, a single CN, issued and recorded
 * by this portal under that CN, not as a server certificate, and not revoked. The built-in TLS face and the proxy header
 * (forwarded-certificate.ts) both end here.
 */
export async function checkAgainstRecord(
  peer: PeerSummary,
  lookup: CertificateLookup,
  now: Date,
): Promise<ClientCertificateResult> {
  if (peer.notAfter.getTime() <= now.getTime()) return { status: 'rejected', reason: 'expired' };
  if (peer.commonName === undefined) return { status: 'rejected', reason: 'no common name' };
  const recorded = await lookup(peer.serial);
  if (recorded === undefined) return { status: 'rejected', reason: 'not issued by this portal' };
  if (recorded.revokedAt !== null) return { status: 'rejected', reason: 'revoked' };
  if (recorded.server === true) return { status: 'rejected', reason: 'not a client certificate' };
  if (recorded.callsign !== peer.commonName) {
    return { status: 'rejected', reason: 'common name does not match the record' };
  }
  return {
    status: 'verified',
    callsign: peer.commonName,
    serial: peer.serial,
    notAfter: peer.notAfter,
    madeBy: recorded.madeBy ?? null,
  };
}
