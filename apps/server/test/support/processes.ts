import { execFile, spawn, type ChildProcess, type ExecFileOptions } from 'node:child_process';
import net from 'node:net';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end and reports its exit status and output (never throws on status). */
export function run(
  file: string,
  args: string[],
  options: ExecFileOptions & { input?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { maxBuffer: 16 * 1024 * 1024, timeout: 60_000, ...options, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(new Error(`could not run ${file}: ${error.message}`, { cause: error }));
          return;
        }
        resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      },
    );
    // A program that exits without reading its input must not fail the test with EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

/** A port that was free a moment ago on loopback. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr together. */
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `node script` with its output collected (a built service or CLI). */
export function spawnNode(
  script: string,
  options: { cwd: string; env: Record<string, string | undefined> },
): ServiceProcess {
  const child = spawn('node', [script], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      resolve(code);
    });
  });
  return { child, output: () => output, exited };
}

export interface CurlTarget {
  port: number;
  /** The two names, both resolved to 127.0.0.1 on `port`. */
  host: string;
  mtlsHost: string;
  /** CA chain for --cacert. */
  chainFile: string;
}

/** curl over real TLS to one face (names resolved to 127.0.0.1), with the status code read out. */
export async function curlFace(
  target: CurlTarget,
  face: 'public' | 'mtls',
  urlPath: string,
  extra: string[] = [],
): Promise<RunResult & { status: number; body: string }> {
  const name = face === 'mtls' ? target.mtlsHost : target.host;
  const result = await run('curl', [
    '--silent',
    '--show-error',
    '--cacert',
    target.chainFile,
    '--resolve',
    `${target.host}:${target.port}:127.0.0.1`,
    '--resolve',
    `${target.mtlsHost}:${target.port}:127.0.0.1`,
    ...(extra.includes('--output') ? [] : ['--output', '-']),
    '--write-out',
    '\n%{http_code}',
    ...extra,
    `https://${name}:${target.port}${urlPath}`,
  ]);
  const cut = result.stdout.lastIndexOf('\n');
  return {
    ...result,
    status: Number(result.stdout.slice(cut + 1)),
    body: result.stdout.slice(0, cut),
  };
}
