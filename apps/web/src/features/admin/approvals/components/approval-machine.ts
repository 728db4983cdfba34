/**
 * The enrolment approval dialog: initial → approving → approved; initial → (asked)
 * → rejecting → rejected; a failure goes back to initial with the error; OK resets.
 */
export type ApprovalState =
  | { step: 'initial'; error: { kind: 'approve' | 'reject'; message: string } | null }
  | { step: 'confirm-reject' }
  | { step: 'approving' }
  | { step: 'approved' }
  | { step: 'rejecting' }
  | { step: 'rejected' };

export type ApprovalEvent =
  | { type: 'approve' }
  | { type: 'ask-reject' }
  | { type: 'cancel-reject' }
  | { type: 'reject' }
  | { type: 'succeeded' }
  | { type: 'failed'; message: string }
  | { type: 'reset' };

export const INITIAL_APPROVAL: ApprovalState = { step: 'initial', error: null };

export function approvalReducer(state: ApprovalState, event: ApprovalEvent): ApprovalState {
  if (event.type === 'reset') return INITIAL_APPROVAL;
  switch (state.step) {
    case 'initial':
      if (event.type === 'approve') return { step: 'approving' };
      if (event.type === 'ask-reject') return { step: 'confirm-reject' };
      return state;
    case 'confirm-reject':
      if (event.type === 'reject') return { step: 'rejecting' };
      if (event.type === 'cancel-reject') return INITIAL_APPROVAL;
      return state;
    case 'approving':
      if (event.type === 'succeeded') return { step: 'approved' };
      if (event.type === 'failed')
        return { step: 'initial', error: { kind: 'approve', message: event.message } };
      return state;
    case 'rejecting':
      if (event.type === 'succeeded') return { step: 'rejected' };
      if (event.type === 'failed')
        return { step: 'initial', error: { kind: 'reject', message: event.message } };
      return state;
    case 'approved':
    case 'rejected':
      return state;
  }
}
