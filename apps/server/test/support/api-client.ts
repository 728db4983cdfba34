import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { readFile } from 'node:fs/promises';

export type Face = 'public' | 'mtls';

export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** The body parsed as JSON (throws when it is not JSON); check it with a contract schema. */
  json(): unknown;
}

export interface ApiRequestOptions {
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as it is, with `contentType` (none when that is not given). */
  raw?: string | Buffer;
  contentType?: string;
  /** `Authorization: Bearer ...` */
  bearer?: string;
  /**
   * A .pfx presented as the client certificate (mTLS face). The inject tier forwards the
   * certificate in it as the proxy does (`certificatePem` when given, else read from the file).
   */
  key?: { pfxFile: string; password: string; certificatePem?: string };
  headers?: Record<string, string>;
}

export interface ApiTarget {
  port: number;
  hostOf(face: Face): string;
  chainPem: string;
}

/**
 * Calls the running portal over real TLS on 127.0.0.1, naming the face by SNI and Host as a
 * browser would, with a fresh connection per call. Calls that change state say
 * `Content-Type: application/json`, body or not, as the portal requires.
 */
export async function callApi(
  target: ApiTarget,
  face: Face,
  method: string,
  path: string,
  options: ApiRequestOptions = {},
): Promise<ApiResponse> {
  const host = target.hostOf(face);
  const headers: Record<string, string> = { host: `${host}:${target.port}`, ...options.headers };
  let payload: Buffer | undefined;
  if (options.json !== undefined) {
    payload = Buffer.from(JSON.stringify(options.json));
    headers['content-type'] = 'application/json';
  } else if (options.raw !== undefined) {
    payload = Buffer.isBuffer(options.raw) ? options.raw : Buffer.from(options.raw);
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  } else if (method !== 'GET' && method !== 'HEAD') {
    // As the web app sends every call: a JSON content type, also without a body.
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  if (payload !== undefined) headers['content-length'] = String(payload.length);
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  const pfx = options.key === undefined ? undefined : await readFile(options.key.pfxFile);

  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: target.port,
        servername: host,
        method,
        path,
        headers,
        ca: target.chainPem,
        agent: false,
        ...(pfx === undefined ? {} : { pfx, passphrase: options.key?.password }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            text,
            json: () => JSON.parse(text) as unknown,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
