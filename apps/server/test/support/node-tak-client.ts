import { APIAuthPassword, TAKAPI } from '@tak-ps/node-tak';
import { Agent, type Dispatcher } from 'undici';

/**
 * `@tak-ps/node-tak` (CloudTAK's TAK client library) as an enrolling client. Its password login
 * sends Basic on `signClient/v2` only and expects to have logged in to TAK Server's OAuth for
 * `tls/config`, which the enrollment protocol does not have. So Basic goes on every request (as
 * ATAK sends it), and the connection trusts the portal's CA (the trust package's job on a phone).
 */
class EnrollmentLogin extends APIAuthPassword {
  constructor(
    username: string,
    password: string,
    private readonly dispatcher: Dispatcher,
  ) {
    super(username, password);
  }

  override fetch(
    api: TAKAPI,
    url: URL,
    opts: { headers?: Record<string, string>; dispatcher?: Dispatcher },
  ): Promise<unknown> {
    const basic = Buffer.from(`${this.username}:${this.password}`).toString('base64');
    opts.headers = { Authorization: `Basic ${basic}`, ...opts.headers };
    opts.dispatcher = this.dispatcher;
    return super.fetch(api, url, opts) as Promise<unknown>;
  }
}

export interface NodeTakEnrollment {
  /** The member's certificate, PEM. */
  cert: string;
  /** The key node-tak made (with the openssl binary), PEM. */
  key: string;
  /** `ca0`, `ca1` of the answer: base64 lines, no PEM header. */
  ca: string[];
}

export interface NodeTakClient {
  /** `Credentials.generate()`: tls/config, a new key and CSR, signClient/v2. */
  enroll(): Promise<NodeTakEnrollment>;
  close(): Promise<void>;
}

/**
 * node-tak makes its key with the `pem` package, which prints every command's output (the new
 * private key included) to stdout when `CI=true`: keep that out of the test log.
 */
async function withoutPemDebug<T>(run: () => Promise<T>): Promise<T> {
  const ci = process.env['CI'];
  delete process.env['CI'];
  try {
    return await run();
  } finally {
    if (ci !== undefined) process.env['CI'] = ci;
  }
}

/** A node-tak client for the enrollment face on 127.0.0.1:`port`, named `servername` by TLS. */
export function nodeTakClient(options: {
  port: number;
  servername: string;
  caPem: string;
  username: string;
  token: string;
}): NodeTakClient {
  const agent = new Agent({ connect: { ca: options.caPem, servername: options.servername } });
  const api = new TAKAPI(
    new URL(`https://127.0.0.1:${String(options.port)}`),
    new EnrollmentLogin(options.username, options.token, agent),
  );
  return {
    enroll: () => withoutPemDebug(() => api.Credentials.generate()),
    close: () => agent.close(),
  };
}
