import https from 'node:https';
import { apiPaths } from '@callsign/contract';

/** Where the mTLS face listens and the CA chain that verifies it. */
export interface MtlsFace {
  port: number;
  /** `mtls.{host}`: the name asked for (SNI) and sent as Host. */
  mtlsHost: string;
  /** PEM of the CA chain that signed the face's certificate. */
  ca: string;
}

/**
 * The status `check-auth/validuser` answers on the mTLS face to a client presenting `cert` and
 * `key` (PEM): 200 when the portal takes them as a valid member's key, on a connection of its own.
 */
export function validUserStatus(face: MtlsFace, cert: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: face.port,
        servername: face.mtlsHost,
        path: apiPaths.checkAuthValidUser,
        headers: { host: `${face.mtlsHost}:${String(face.port)}` },
        ca: face.ca,
        cert,
        key,
        agent: false,
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          resolve(response.statusCode ?? 0);
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}
