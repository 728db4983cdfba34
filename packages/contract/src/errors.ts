import { z } from 'zod';

/** Every error answer: a text, or for malformed input a list of issues (docs/api.md). */
export const validationIssueSchema = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export const errorResponseSchema = z.object({
  detail: z.union([z.string(), z.array(validationIssueSchema)]),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
export type ValidationIssue = z.infer<typeof validationIssueSchema>;

/** The 400 detail of enroll and add-admin for a reserved callsign; the web app shows its own text. */
export const RESERVED_CALLSIGN_DETAIL =
  'This callsign is reserved for the TAK Server or the portal itself; choose another one';
