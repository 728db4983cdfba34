import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact.js';

const INVITE = '/api/v1/enrollment/invitecode/:code';

describe('redactUrl', () => {
  it('keeps query names but drops their values', () => {
    expect(
      redactUrl({
        url: '/api/v1/firstuser/check-code?temp_admin_code=ABCDEFGH2345',
        route: '/api/v1/firstuser/check-code',
        params: {},
      }),
    ).toBe('/api/v1/firstuser/check-code?temp_admin_code=[redacted]');
    expect(redactUrl({ url: '/login?code=ABCD2345&x=1', route: undefined, params: {} })).toBe(
      '/login?code=[redacted]&x=[redacted]',
    );
  });

  it('drops the invite code from the delete path, however the path was spelled', () => {
    for (const url of [
      '/api/v1/enrollment/invitecode/ABCD2345',
      '/api/v1/enrollment/%69nvitecode/ABCD2345',
      '/api/v1/enrollment/invitecode/%41BCD2345',
    ]) {
      expect(redactUrl({ url, route: INVITE, params: { code: 'ABCD2345' } })).toBe(
        '/api/v1/enrollment/invitecode/[redacted]',
      );
    }
  });

  it('writes parameters that hold no secret, and never an unmatched server path', () => {
    expect(
      redactUrl({
        url: '/api/v1/people/Ranger%31',
        route: '/api/v1/people/:callsign',
        params: { callsign: 'Ranger1' },
      }),
    ).toBe('/api/v1/people/Ranger1');
    expect(
      redactUrl({ url: '/api/v1/enrollment/invitecode/ABCD2345/x', route: undefined, params: {} }),
    ).toBe('/api/[redacted]');
    expect(redactUrl({ url: '/ca/ocsp/MEMwQTA', route: '/ca/ocsp/*', params: { '*': 'x' } })).toBe(
      '/ca/ocsp/[redacted]',
    );
  });

  it('leaves plain paths alone', () => {
    expect(
      redactUrl({ url: '/api/v1/healthcheck', route: '/api/v1/healthcheck', params: {} }),
    ).toBe('/api/v1/healthcheck');
    for (const action of ['enroll', 'create', 'activate', 'deactivate']) {
      const url = `/api/v1/enrollment/invitecode/${action}`;
      expect(redactUrl({ url, route: url, params: {} })).toBe(url);
    }
    expect(redactUrl({ url: '/app/admin/', route: undefined, params: {} })).toBe('/app/admin/');
  });
});
