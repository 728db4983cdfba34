import { useMutation } from '@tanstack/react-query';
import { apiPaths } from '@callsign/contract';
import { ApiError, apiRequest } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';
import { STORAGE_KEYS, readStored } from '../../../lib/storage-keys';

export const keyKeys = {
  all: ['key'] as const,
  download: () => [...keyKeys.all, 'download'] as const,
};

const CERTIFICATE_FAILED = 'Failed to get the certificate.';

/** GET enduserpfx/{callsign} with the stored JWT; the answer is saved as `{callsign}.pfx`. */
export async function downloadKey(callsign: string): Promise<void> {
  const token = readStored(STORAGE_KEYS.token);
  if (token === null) throw new Error('No JWT found');
  let blob: Blob;
  try {
    const response = await apiRequest(apiPaths.keyDownload(callsign), { token });
    blob = await response.blob();
  } catch (error) {
    const message =
      error instanceof ApiError ? (error.detail ?? CERTIFICATE_FAILED) : CERTIFICATE_FAILED;
    throw new Error(message, { cause: error });
  }
  saveBlob(blob, `${callsign}.pfx`);
}

export function useKeyDownload() {
  return useMutation({ mutationKey: keyKeys.download(), mutationFn: downloadKey });
}
