import { z } from 'zod';
import { INVITE_REFUSALS } from '../limits.js';
import {
  approvalCodeField,
  callsignField,
  codeField,
  NO_CONTROL_CHARACTERS,
  successTrue,
  TYPED_LINES,
} from './fields.js';

/** GET enrollment/invitecode?invitecode= */
export const checkInviteCodeQuerySchema = z.strictObject({ invitecode: codeField });
export const checkInviteCodeResponseSchema = z.object({
  invitecode_is_active: z.boolean(),
  /** Only for a usable bulk slip: the callsign it is for, the only one it enrolls. */
  reserved_callsign: z.string().optional(),
  /**
   * Only for a code that exists but admits nobody now: why (deactivated, expired or used up), so
   * the person is told what happened instead of "the code is wrong". Unknown codes say nothing.
   */
  invitecode_state: z.enum(INVITE_REFUSALS).optional(),
});

/** POST enrollment/invitecode/enroll */
export const enrollBodySchema = z.strictObject({
  callsign: callsignField,
  invite_code: codeField,
});
export const enrollResponseSchema = z.object({
  jwt: z.string(),
  approvecode: z.string(),
  callsign: z.string(),
});

/** The decision on an enrollment: 0 pending, 1 approved, 2 rejected. */
export const ENROLLMENT_STATE = { pending: 0, approved: 1, rejected: 2 } as const;
export const enrollmentStateNameSchema = z.enum(['pending', 'approved', 'rejected']);
export const enrollmentStateSchema = z.union([
  z.literal(ENROLLMENT_STATE.pending),
  z.literal(ENROLLMENT_STATE.approved),
  z.literal(ENROLLMENT_STATE.rejected),
]);

/**
 * Where an enrollee stands: their enrollment's decision, or `revoked` once an admin revoked them
 * (whatever the decision was).
 */
export const acceptanceStateSchema = z.enum([...enrollmentStateNameSchema.options, 'revoked']);

/** GET enrollment/have-i-been-accepted: true only while approved and not revoked. */
export const acceptanceResponseSchema = z.object({
  have_i_been_accepted: z.boolean(),
  state: acceptanceStateSchema,
});

/** GET enrollment/list (admin): approvecode is always "" here (docs/api.md). */
export const enrollmentListResponseSchema = z.object({
  callsign_list: z.array(
    z.object({
      callsign: z.string(),
      approvecode: z.literal(''),
      state: enrollmentStateSchema,
    }),
  ),
});

/** POST enrollment/accept (admin) */
export const acceptBodySchema = z.strictObject({
  callsign: callsignField,
  approvecode: approvalCodeField,
});
export const acceptResponseSchema = z.object({ success: successTrue, detail: z.string() });

/** POST enrollment/lock (admin): rejects a pending enrollment. */
export const lockBodySchema = z.strictObject({
  callsign: callsignField,
  lock_reason: z.string().max(500).regex(TYPED_LINES, NO_CONTROL_CHARACTERS),
});
export const lockResponseSchema = z.object({ success: successTrue });

export type CheckInviteCodeResponse = z.infer<typeof checkInviteCodeResponseSchema>;
export type EnrollBody = z.input<typeof enrollBodySchema>;
export type EnrollResponse = z.infer<typeof enrollResponseSchema>;
export type EnrollmentStateName = z.infer<typeof enrollmentStateNameSchema>;
export type AcceptanceState = z.infer<typeof acceptanceStateSchema>;
export type EnrollmentState = z.infer<typeof enrollmentStateSchema>;
export type AcceptanceResponse = z.infer<typeof acceptanceResponseSchema>;
export type EnrollmentListResponse = z.infer<typeof enrollmentListResponseSchema>;
export type AcceptBody = z.input<typeof acceptBodySchema>;
export type AcceptResponse = z.infer<typeof acceptResponseSchema>;
export type LockBody = z.input<typeof lockBodySchema>;
export type LockResponse = z.infer<typeof lockResponseSchema>;
