import { describe, expect, it } from 'vitest';
import { isServerCertName } from './server-cert-names.js';

describe('server-cert names (docs/deployment.md)', () => {
  it('takes DNS names with a dot, a wildcard first label included', () => {
    for (const name of ['tak.example.org', 'ldap.unit.example', '*.example.org', 'a-1.b2.c'])
      expect(isServerCertName(name), name).toBe(true);
  });

  it('refuses a name without a dot (any callsign, reserved ones included) and malformed names', () => {
    for (const name of [
      'Viper7',
      'takserver',
      'localhost',
      '*.org',
      'tak..org',
      '-x.org',
      'x-.org',
      'tak.example.org.',
      'a b.org',
      `${'a'.repeat(64)}.org`,
    ])
      expect(isServerCertName(name), name).toBe(false);
  });
});
