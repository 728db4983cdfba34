import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
