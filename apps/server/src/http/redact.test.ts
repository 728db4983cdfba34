import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact.js';

describe('redactUrl', () => {
  it('keeps query names but drops their values', () => {
    expect(redactUrl('/api/v1/firstuser/check-code?temp_admin_code=ABCDEFGH2345')).toBe(
      '/api/v1/firstuser/check-code?temp_admin_code=[redacted]',
    );
    expect(redactUrl('/login?code=ABCD2345&x=1')).toBe('/login?code=[redacted]&x=[redacted]');
  });

  it('drops the invite code from the delete path', () => {
    expect(redactUrl('/api/v1/enrollment/invitecode/ABCD2345')).toBe(
      '/api/v1/enrollment/invitecode/[redacted]',
    );
  });

  it('leaves plain paths alone', () => {
    expect(redactUrl('/api/v1/healthcheck')).toBe('/api/v1/healthcheck');
    for (const action of ['enroll', 'create', 'activate', 'deactivate']) {
      expect(redactUrl(`/api/v1/enrollment/invitecode/${action}`)).toBe(
        `/api/v1/enrollment/invitecode/${action}`,
      );
    }
  });
});
