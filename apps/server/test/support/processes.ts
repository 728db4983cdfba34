import { execFile, type ExecFileOptions } from 'node:child_process';
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
