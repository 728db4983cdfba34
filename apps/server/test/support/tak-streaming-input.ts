import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type RunResult } from './processes.js';
import { SERVER_DIST } from './repo.js';

const INPUT = fileURLToPath(new URL('../jvm/TakStreamingInput.java', import.meta.url));

/** TakStreamingInput.java running: TAK Server's streaming input (8089) as its source sets it up. */
export interface StreamingInput {
  pid: number | undefined;
  log(): string;
  /** The log once a line matches (the client may see the alert before the JVM prints it). */
  logged(line: RegExp): Promise<string>;
  stop(): Promise<void>;
}

export interface StreamingInputOptions {
  port: number;
  keystore: string;
  truststore: string;
  password: string;
  /** `<tls enableOCSP="true">`: the JVM asks the OCSP URL of each client certificate. */
  enableOcsp: boolean;
  /** The `<crl>` files, each read once at start (only its first CRL, as TAK Server reads it). */
  crlFiles: string[];
  /** Where the JVM finds the OCSP URL's host (`jdk.net.hosts.file`), when it asks OCSP. */
  hostsFile?: string;
}

/** Starts the listener on 127.0.0.1 and resolves once it says it is ready. */
export async function startStreamingInput(options: StreamingInputOptions): Promise<StreamingInput> {
  const child: ChildProcessWithoutNullStreams = spawn('java', [
    ...(options.hostsFile === undefined ? [] : [`-Djdk.net.hosts.file=${options.hostsFile}`]),
    INPUT,
    String(options.port),
    options.keystore,
    options.truststore,
    options.password,
    String(options.enableOcsp),
    ...options.crlFiles,
  ]);
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => {
      reject(new Error(`the listener exited (${String(code)}): ${log}`));
    });
  });
  return {
    pid: child.pid,
    log: () => log,
    async logged(line) {
      for (let waited = 0; waited < 5000 && !line.test(log); waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return log;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // It exits when its standard input closes.
      child.stdin.end();
      await exited;
    },
  };
}

/**
 * The built CLI's `tak-check` against a streaming input on 127.0.0.1, for the portal whose data
 * directory, port and database `portal` names (TAK_HOST, TAK_PORT: the input's).
 */
export function takCheckAgainst(
  portal: { dataDir: string; port: number; env: Record<string, string> },
  tak: { host: string; port: number },
  extra: string[] = [],
): Promise<RunResult> {
  const cli = path.join(SERVER_DIST, 'cli.js');
  return run('node', [cli, 'tak-check', '--address', '127.0.0.1', '--timeout', '20', ...extra], {
    timeout: 120_000,
    env: {
      ...process.env,
      ...portal.env,
      PORTAL_DATA_DIR: portal.dataDir,
      // The service's own address: the OCSP URL written into the test member's certificate.
      PORTAL_PORT: String(portal.port),
      PORTAL_LOG_LEVEL: 'silent',
      TAK_HOST: tak.host,
      TAK_PORT: String(tak.port),
    },
  });
}
