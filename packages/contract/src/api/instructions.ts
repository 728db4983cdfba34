import { z } from 'zod';

export const ZIP_DATA_URL_PREFIX = 'data:application/zip;base64,';

/** One TAK settings package: its label, file name and the zip as a base64 data URL. */
export const takPackageSchema = z.object({
  title: z.string(),
  filename: z.string(),
  data: z.string().regex(/^data:application\/zip;base64,[A-Za-z0-9+/]*={0,2}$/),
});

/** GET instructions/user (valid user): the TAK packages, Other, iOS, tracker (docs/tak.md). */
export const instructionsResponseSchema = z.object({
  files: z.object({ tak: z.array(takPackageSchema) }),
});

export type TakPackageFile = z.infer<typeof takPackageSchema>;
export type InstructionsResponse = z.infer<typeof instructionsResponseSchema>;
