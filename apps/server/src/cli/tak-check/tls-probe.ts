import type { X509Certificate } from 'node:crypto';
import net, { isIP } from 'node:net';
import tls from 'node:tls';

export interface PemIdentity {
  certificatePem: string;
  privateKeyPem: string;
  /** Intermediate CAs sent along with the certificate. */
  chainPem: readonly string[];
}

export type ClientIdentity =
  | PemIdentity
  /** A PKCS#12 file's content and its password (a key of another CA, made elsewhere). */
  | { pfx: Buffer; passphrase: string };

export interface TlsProbeOptions {
  /** The name the server's certificate must carry; also sent as SNI unless it is an address. */
  host: string;
  /** Where to connect: `host` unless given (a TAK Server not yet in DNS). */
  address?: string | undefined;
  port: number;
  /** The CA certificates (PEM) the server's certificate is judged against. */
  trusted: readonly string[];
  client: ClientIdentity;
  /**
   * `TLSv1.2` pins the version so that the handshake itself is the server's verdict on the client
   * certificate: in TLS 1.3 the client finishes before the server has judged it.
   */
  maxVersion?: 'TLSv1.2';
  timeoutMs: number;
}

export type TlsProbeResult =
  /** The handshake finished (in TLS 1.2: the server accepted the client certificate). */
  | {
      kind: 'connected';
      protocol: string;
      peer: X509Certificate | undefined;
      /** Whether the server's chain validates against `trusted`, and why not. */
      authorized: boolean;
      authorizationError: string | undefined;
    }
  /** TLS was spoken, then the server ended the handshake (an alert, or a reset). */
  | { kind: 'refused'; reason: string; peer: X509Certificate | undefined }
  /** No TLS conversation at all: no route, nothing listening, no answer in time. */
  | { kind: 'unreachable'; reason: string };

/** Whether anything accepts a TCP connection there: undefined when it does, else why not. */
export function probeTcp(
  address: string,
  port: number,
  timeoutMs: number,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port, timeout: timeoutMs });
    const settle = (reason: string | undefined) => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(reason);
    };
    socket.once('connect', () => {
      settle(undefined);
    });
    socket.once('timeout', () => {
      settle(`no answer within ${timeoutMs / 1000} s`);
    });
    socket.once('error', (error: Error & { code?: string }) => {
      settle(error.code ?? error.message);
    });
  });
}

/** `error:0A000414:SSL routines::sslv3 alert certificate revoked` → `certificate revoked`. */
export function alertText(error: Error & { code?: string }): string | undefined {
  const alert = /alert ([a-z ]+?)(?::|$)/i.exec(error.message)?.[1];
  return alert?.replace(/^(sslv3|tlsv1|tlsv13) /i, '').trim();
}

/**
 * One TLS handshake with a client certificate. Never throws: every outcome is a result, with the
 * server's certificate whenever the server sent one.
 */
export function probeTls(options: TlsProbeOptions): Promise<TlsProbeResult> {
  return new Promise((resolve) => {
    let peer: X509Certificate | undefined;
    let spokeTls = false;
    const socket = tls.connect({
      host: options.address ?? options.host,
      port: options.port,
      ...(isIP(options.host) === 0 ? { servername: options.host } : {}),
      ca: [...options.trusted],
      ...('pfx' in options.client
        ? { pfx: options.client.pfx, passphrase: options.client.passphrase }
        : {
            cert: [options.client.certificatePem, ...options.client.chainPem].join(''),
            key: options.client.privateKeyPem,
          }),
      // Judged here and reported, not refused: the probe wants to see the server either way.
      rejectUnauthorized: false,
      // The name is checked apart (X509Certificate.checkHost): `authorized` is about the chain.
      checkServerIdentity: () => undefined,
      ...(options.maxVersion === undefined ? {} : { maxVersion: options.maxVersion }),
      timeout: options.timeoutMs,
    });
    const settle = (result: TlsProbeResult) => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(result);
    };
    const peerOf = () => {
      try {
        return socket.getPeerX509Certificate() ?? peer;
      } catch {
        return peer;
      }
    };
    // Key material means the server answered the ClientHello: TLS is spoken there.
    socket.on('keylog', () => {
      spokeTls = true;
      peer = peerOf();
    });
    socket.once('secureConnect', () => {
      settle({
        kind: 'connected',
        protocol: socket.getProtocol() ?? 'TLS',
        peer: peerOf(),
        authorized: socket.authorized,
        // Node leaves authorizationError null when the chain is trusted.
        authorizationError: socket.authorized ? undefined : String(socket.authorizationError),
      });
    });
    socket.once('timeout', () => {
      settle({ kind: 'unreachable', reason: `no answer within ${options.timeoutMs / 1000} s` });
    });
    socket.once('error', (error: Error & { code?: string }) => {
      const alert = alertText(error);
      const known = peerOf();
      if (alert !== undefined) {
        settle({ kind: 'refused', reason: `TLS alert "${alert}"`, peer: known });
      } else if (spokeTls || known !== undefined) {
        settle({ kind: 'refused', reason: error.code ?? error.message, peer: known });
      } else {
        settle({ kind: 'unreachable', reason: error.code ?? error.message });
      }
    });
    socket.once('close', () => {
      settle({ kind: 'refused', reason: 'the server closed the connection', peer: peerOf() });
    });
  });
}
