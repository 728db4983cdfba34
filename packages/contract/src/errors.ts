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
