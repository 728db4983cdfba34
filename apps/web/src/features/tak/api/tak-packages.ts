import { useMutation } from '@tanstack/react-query';
import { ZIP_DATA_URL_PREFIX, apiPaths, type TakPackageFile } from '@callsign/contract';
import { ApiError, apiJson, type ApiResponse } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';
import type { Platform } from '../../../lib/platform';

/** The zip choices of the TAK download, by the server's package titles (docs/tak.md). */
export const TAK_PACKAGE_CHOICES = ['iOS', 'Other', 'tracker'] as const;
export type TakPackageChoice = (typeof TAK_PACKAGE_CHOICES)[number];

/** Default choice: iOS on an iOS device, else Other (Android and Windows). */
export function defaultTakChoice(platform: Platform): TakPackageChoice {
  return platform === 'iOS' ? 'iOS' : 'Other';
}

export const takKeys = {
  all: ['tak'] as const,
  download: () => [...takKeys.all, 'download'] as const,
};

const DOWNLOAD_FAILED = 'Failed to get the TAK settings.';

/** Where each choice sits in the server's answer (Other, iOS, tracker). */
const TAK_PACKAGE_CHOICES_BY_INDEX: Record<TakPackageChoice, number> = {
  Other: 0,
  iOS: 1,
  tracker: 2,
};

/**
 * The type the zip is saved as: Android offers ATAK to open `application/octet-stream` files, not
 * `application/zip` ones (docs/tak.md, ATAK's import filter).
 */
export const TAK_PACKAGE_SAVE_TYPE = 'application/octet-stream';

/** The zip bytes of a `data:application/zip;base64,...` URL, typed for saving. */
export function zipFromDataUrl(dataUrl: string): Blob {
  if (!dataUrl.startsWith(ZIP_DATA_URL_PREFIX)) throw new Error(DOWNLOAD_FAILED);
  const binary = atob(dataUrl.slice(ZIP_DATA_URL_PREFIX.length));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return new Blob([bytes], { type: TAK_PACKAGE_SAVE_TYPE });
}

/** The package of a choice: by its title, else by its place in the server's order. */
export function pickPackage(files: TakPackageFile[], choice: TakPackageChoice): TakPackageFile {
  const found =
    files.find((file) => file.title === choice) ?? files[TAK_PACKAGE_CHOICES_BY_INDEX[choice]];
  if (found === undefined) throw new Error(DOWNLOAD_FAILED);
  return found;
}

/**
 * GET instructions/user with the member's key (mTLS), then saves the chosen zip under the file
 * name the server gives. Resolves to that file name.
 */
export async function downloadTakPackage(choice: TakPackageChoice): Promise<string> {
  let answer: ApiResponse<'instructions'>;
  try {
    answer = await apiJson(apiPaths.instructions, 'instructions');
  } catch (error) {
    const message =
      error instanceof ApiError ? (error.detail ?? DOWNLOAD_FAILED) : errorText(error);
    throw new Error(message, { cause: error });
  }
  const file = pickPackage(answer.files.tak, choice);
  saveBlob(zipFromDataUrl(file.data), file.filename);
  return file.filename;
}

function errorText(error: unknown): string {
  return error instanceof Error && error.message !== '' ? error.message : DOWNLOAD_FAILED;
}

export function useTakDownload() {
  return useMutation({ mutationKey: takKeys.download(), mutationFn: downloadTakPackage });
}
