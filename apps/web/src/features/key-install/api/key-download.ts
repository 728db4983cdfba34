import { useMutation } from '@tanstack/react-query';
import { apiPaths } from '@callsign/contract';
import { ApiError, apiRequest, withDetail } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';
import { STORAGE_KEYS, readStored } from '../../../lib/storage-keys';

export const keyKeys = {
  all: ['key'] as const,
  download: () => [...keyKeys.all, 'download'] as const,
};

const CERTIFICATE_FAILED = 'Failed to get the certificate.';

/**
 * GET enduserpfx/{callsign}, the answer saved as `{callsign}.pfx`: with the stored JWT (the key
 * page of sign-in), or with the member's installed key on the mTLS face (`'key'`: a renewal).
 */
export async function downloadKey(
  callsign: string,
  credential: 'token' | 'key' = 'token',
): Promise<void> {
  const token = credential === 'token' ? readStored(STORAGE_KEYS.token) : null;
  if (credential === 'token' && token === null) throw new Error('No JWT found');
  let blob: Blob;
  try {
    const response = await apiRequest(
      apiPaths.keyDownload(callsign),
      token === null ? {} : { token },
    );
    blob = await response.blob();
  } catch (error) {
    // The server's reason stays with it, for the page to say in the reader's language.
    if (error instanceof ApiError) withDetail(error, CERTIFICATE_FAILED);
    throw new Error(CERTIFICATE_FAILED, { cause: error });
  }
  saveBlob(blob, `${callsign}.pfx`);
}

export function useKeyDownload(credential: 'token' | 'key' = 'token') {
  return useMutation({
    mutationKey: keyKeys.download(),
    mutationFn: (callsign: string) => downloadKey(callsign, credential),
  });
}
