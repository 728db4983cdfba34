import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The zbarimg exit status when it read no code in the image (zbarimg(1)). */
const ZBAR_NO_CODE = 4;

/** The QR codes ZBar reads in a picture, one string each; none when it reads none. */
export async function qrCodesIn(pictureFile: string): Promise<string[]> {
  const args = ['--raw', '-q', '-Sdisable', '-Sqrcode.enable', pictureFile];
  const stdout = await run('zbarimg', args).then(
    (result) => result.stdout,
    (error: unknown) => {
      if ((error as { code?: unknown }).code === ZBAR_NO_CODE) return '';
      throw error;
    },
  );
  return stdout.split('\n').filter((line) => line !== '');
}
