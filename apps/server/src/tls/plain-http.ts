import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';

/**
 * Plain HTTP that arrives on the TLS port (docs/api.md). The CA's public files (`/ca/*`: chain,
 * CRL, OCSP, issuer certificate) are answered as they are over HTTPS, because the URLs written
 * into certificates are plain `http://`: a relying party such as a TAK Server's JVM fetches them
 * with its own trust store, which does not hold our CA (https there is circular). The answers are
 * signed, so plain HTTP costs them nothing. Everything else is sent to HTTPS.
 */

const CA_PREFIX = '/ca/';
/** What a CRL fetch, a caIssuers fetch and an OCSP request (GET or POST) use. */
const CA_METHODS = new Set(['GET', 'HEAD', 'POST']);

/** The requests this server handed to the application: answered in plain HTTP. */
const handedOn = new WeakSet<IncomingMessage>();

/** Whether `request` came in plain HTTP on the TLS port (a CA file), not through TLS. */
export function cameInPlainHttp(request: IncomingMessage): boolean {
  return handedOn.has(request);
}

/** Whether a plain-HTTP request may have its answer in plain HTTP: the CA's files only. */
export function isPlainHttpCaRequest(method: string | undefined, url: string | undefined): boolean {
  return CA_METHODS.has(method ?? '') && (url ?? '').startsWith(CA_PREFIX);
}

function redirectToHttps(response: ServerResponse, httpsOrigin: string): void {
  const body = `This port speaks HTTPS: ${httpsOrigin}/\n`;
  response.writeHead(308, {
    location: `${httpsOrigin}/`,
    'content-type': 'text/plain',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

export interface PlainHttpServerOptions {
  /** The application: it gets the `/ca/*` requests (as the public face, no identity). */
  handler: RequestListener;
  /** Where every other request is redirected to. */
  httpsOrigin: string;
  /** A request (headers and body) must arrive whole within this. */
  requestTimeoutMs: number;
}

/** An HTTP server fed connections by the TLS listener (it never listens itself). */
export function createPlainHttpServer(options: PlainHttpServerOptions): http.Server {
  const { handler, httpsOrigin, requestTimeoutMs } = options;
  return http.createServer(
    {
      headersTimeout: requestTimeoutMs,
      requestTimeout: requestTimeoutMs,
      // How often the two timeouts above are checked (Node's default is every 30 s).
      connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs),
    },
    (request: IncomingMessage, response: ServerResponse) => {
      if (isPlainHttpCaRequest(request.method, request.url)) {
        handedOn.add(request);
        handler(request, response);
        return;
      }
      redirectToHttps(response, httpsOrigin);
    },
  );
}
