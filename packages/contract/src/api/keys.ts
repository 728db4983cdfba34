import { z } from 'zod';
import { callsignField } from './fields.js';

/** GET enduserpfx/{callsign}?format=legacy|modern: the caller's own key as PKCS#12. */
export const keyDownloadParamsSchema = z.strictObject({ callsign: callsignField });
export const keyDownloadQuerySchema = z.strictObject({
  format: z.enum(['legacy', 'modern']).default('legacy'),
});
export type KeyFormat = z.infer<typeof keyDownloadQuerySchema>['format'];

/** The answer: the PKCS#12 file itself (`application/x-pkcs12`), password the callsign. */
export const keystoreResponseSchema = z.file();
