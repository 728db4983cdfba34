import { z } from 'zod';
import { ERROR_REASONS } from './error-reasons.js';

/** Every error answer: a text, or for malformed input a list of issues (docs/api.md). */
export const validationIssueSchema = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export const errorResponseSchema = z.object({
  detail: z.union([z.string(), z.array(validationIssueSchema)]),
  /** Why, for a refusal the web app says in the reader's language (error-reasons.ts). */
  reason: z.enum(ERROR_REASONS).optional(),
});
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
export type ValidationIssue = z.infer<typeof validationIssueSchema>;
