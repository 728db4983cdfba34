import { describe, expect, it } from 'vitest';
import {
  approvalReducer,
  INITIAL_APPROVAL,
  type ApprovalEvent,
  type ApprovalState,
} from './approval-machine';

function run(...events: ApprovalEvent[]): ApprovalState {
  return events.reduce(approvalReducer, INITIAL_APPROVAL);
}

describe('the approval dialog state machine', () => {
  it('initial → approving → approved', () => {
    expect(run({ type: 'approve' })).toEqual({ step: 'approving' });
    expect(run({ type: 'approve' }, { type: 'succeeded' })).toEqual({ step: 'approved' });
  });

  it('a failed approval goes back to initial with the error', () => {
    expect(run({ type: 'approve' }, { type: 'failed', message: 'Wrong approval code' })).toEqual({
      step: 'initial',
      error: { kind: 'approve', message: 'Wrong approval code' },
    });
  });

  it('rejecting only after the confirmation; then rejected, or back to initial on failure', () => {
    expect(run({ type: 'reject' })).toEqual(INITIAL_APPROVAL);
    expect(run({ type: 'ask-reject' })).toEqual({ step: 'confirm-reject' });
    expect(run({ type: 'ask-reject' }, { type: 'cancel-reject' })).toEqual(INITIAL_APPROVAL);
    expect(run({ type: 'ask-reject' }, { type: 'reject' })).toEqual({ step: 'rejecting' });
    expect(run({ type: 'ask-reject' }, { type: 'reject' }, { type: 'succeeded' })).toEqual({
      step: 'rejected',
    });
    expect(
      run({ type: 'ask-reject' }, { type: 'reject' }, { type: 'failed', message: 'not pending' }),
    ).toEqual({ step: 'initial', error: { kind: 'reject', message: 'not pending' } });
  });

  it('a new attempt clears the old error; reset (OK) goes back to a clean initial', () => {
    const failed = run({ type: 'approve' }, { type: 'failed', message: 'x' });
    expect(approvalReducer(failed, { type: 'approve' })).toEqual({ step: 'approving' });
    expect(run({ type: 'approve' }, { type: 'succeeded' }, { type: 'reset' })).toEqual(
      INITIAL_APPROVAL,
    );
  });

  it('ignores events that do not belong to the step (no double submit, no stray results)', () => {
    const approving = run({ type: 'approve' });
    expect(approvalReducer(approving, { type: 'approve' })).toBe(approving);
    expect(approvalReducer(approving, { type: 'ask-reject' })).toBe(approving);
    const approved = run({ type: 'approve' }, { type: 'succeeded' });
    expect(approvalReducer(approved, { type: 'failed', message: 'late' })).toBe(approved);
    expect(approvalReducer(INITIAL_APPROVAL, { type: 'succeeded' })).toBe(INITIAL_APPROVAL);
  });
});
