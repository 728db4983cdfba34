import { fileURLToPath } from 'node:url';
import { run } from './processes.js';

/**
 * `@tak-ps/node-tak` (CloudTAK's TAK client library), unmodified, as an enrolling client: its
 * stock flow, `TAKAPI.init(url, new APIAuthPassword(callsign, token))` (TAK Server's OAuth:
 * `POST /oauth/token`, password grant) then `Credentials.generate()` (`tls/config` with the
 * access token as Bearer, a key and CSR made with the openssl binary, `signClient/v2` with
 * Basic). It runs in a Node process of its own, as CloudTAK does, with no code of the portal
 * and no transport of the test's: it trusts the portal's CA the way any Node program is told
 * to, `NODE_EXTRA_CA_CERTS`, and reaches the face by its name.
 */
const STOCK_FLOW = `
import { APIAuthPassword, TAKAPI } from '@tak-ps/node-tak';
const { TAK_URL, TAK_USERNAME, TAK_TOKEN } = process.env;
try {
  const api = await TAKAPI.init(new URL(TAK_URL), new APIAuthPassword(TAK_USERNAME, TAK_TOKEN));
  const credentials = await api.Credentials.generate();
  process.stdout.write(JSON.stringify({ credentials, jwt: api.auth.jwt }));
} catch (error) {
  process.stdout.write(
    JSON.stringify({ error: { status: error.status, safe: error.safe, message: error.message } }),
  );
}
`;

const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface NodeTakEnrollment {
  /** The member's certificate, PEM. */
  cert: string;
  /** The key node-tak made (with the openssl binary), PEM. */
  key: string;
  /** `ca0`, `ca1` of the answer: base64 lines, no PEM header. */
  ca: string[];
}

export type NodeTakOutcome =
  { credentials: NodeTakEnrollment; jwt: string } | { error: { status: number; message: string } };

/**
 * Runs node-tak's stock enrollment against `url` (`https://{takHost}:{port}`, a name that
 * resolves to this machine), trusting the CA chain in `caFile`.
 */
export async function enrollWithNodeTak(options: {
  url: string;
  caFile: string;
  username: string;
  token: string;
}): Promise<NodeTakOutcome> {
  // node-tak's key maker (the pem package) prints every command's output, the new private key
  // included, when CI=true: keep that out of the test log.
  const env = { ...process.env };
  delete env['CI'];
  const result = await run(process.execPath, ['--input-type=module', '-e', STOCK_FLOW], {
    cwd: REPOSITORY_ROOT,
    env: {
      ...env,
      NODE_EXTRA_CA_CERTS: options.caFile,
      TAK_URL: options.url,
      TAK_USERNAME: options.username,
      TAK_TOKEN: options.token,
    },
  });
  if (result.code !== 0) throw new Error(`node-tak did not run: ${result.stderr}`);
  return JSON.parse(result.stdout) as NodeTakOutcome;
}
