import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { takPaths } from '@callsign/contract';
import { apiJson, apiRequest, type ApiResponse } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/download';
import { publicOrigin } from '../../../lib/hosts';
import { TAK_PACKAGE_SAVE_TYPE, takKeys } from './tak-packages';

export type EnrollmentToken = ApiResponse<'takEnrollmentToken'>;

/**
 * POST tak/enrollment-token: a one-time code for the caller (their key, or their JWT on the key
 * page), or with `callsign` for that member (an admin's enrollment station). A new code voids
 * the last one.
 */
export function requestEnrollmentToken(callsign?: string): Promise<EnrollmentToken> {
  const path =
    callsign === undefined ? takPaths.enrollmentToken : takPaths.enrollmentTokenFor(callsign);
  return apiJson(path, 'takEnrollmentToken', { method: 'POST', bearer: callsign === undefined });
}

/**
 * The code on show and how to make the next one: the last code stays shown while a new one is
 * made (a new code voids it on the server anyway).
 */
export function useEnrollmentToken(callsign?: string) {
  const [code, setCode] = useState<EnrollmentToken | undefined>(undefined);
  const mutation = useMutation({
    mutationKey: [...takKeys.all, 'enrollment-token', callsign ?? 'own'],
    mutationFn: () => requestEnrollmentToken(callsign),
    onSuccess: setCode,
  });
  return {
    code,
    isPending: mutation.isPending,
    error: mutation.error,
    make: () => {
      mutation.mutate();
    },
    clear: () => {
      setCode(undefined);
      mutation.reset();
    },
  };
}

/** The trust package's flavours: ATAK's suffixed keys, or iTAK's (`?client=itak`, §14). */
export const TRUST_PACKAGE_CLIENTS = ['atak', 'itak'] as const;
export type TrustPackageClient = (typeof TRUST_PACKAGE_CLIENTS)[number];

/** The trust package's address: iTAK's flavour asked for with `?client=itak`. */
export function trustPackagePath(client: TrustPackageClient): string {
  return client === 'itak' ? `${takPaths.trustPackage}?client=itak` : takPaths.trustPackage;
}

/**
 * Where a phone gets the trust package by scanning a laptop's screen, signed in nowhere: the
 * unnamed one on the public face (of the flavour).
 */
export function unnamedTrustPackageUrl(
  client: TrustPackageClient,
  origin = publicOrigin(),
): string {
  const path = takPaths.unnamedTrustPackage;
  return `${origin}${client === 'itak' ? `${path}?client=itak` : path}`;
}

/** GET tak/trust-package (of the flavour), saved as the TAK apps open it (TAK_PACKAGE_SAVE_TYPE). */
export async function downloadTrustPackage(client: TrustPackageClient): Promise<void> {
  const response = await apiRequest(trustPackagePath(client), { bearer: true });
  const disposition = response.headers.get('content-disposition') ?? '';
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'trust.zip';
  const bytes = await response.arrayBuffer();
  saveBlob(new Blob([bytes], { type: TAK_PACKAGE_SAVE_TYPE }), filename);
}

export function useTrustPackageDownload() {
  return useMutation({
    mutationKey: [...takKeys.all, 'trust-package'],
    mutationFn: downloadTrustPackage,
  });
}

/** Whole seconds from `now` until `expiresAt` (ISO), never below zero. */
export function secondsLeft(expiresAt: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(expiresAt) - now) / 1000));
}

/** `m:ss` of a count-down. */
export function formatCountdown(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return `${String(minutes)}:${String(seconds % 60).padStart(2, '0')}`;
}
