import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ConfigError, ENVIRONMENT_VARIABLES, loadConfig } from './config.js';

const cwd = '/srv/portal';

/** Proxy mode needs the proxy's secret (docs/deployment.md): one file for every case here. */
const secretDir = mkdtempSync(path.join(os.tmpdir(), 'portal-config-secret-'));
const PROXY_SECRET_FILE = path.join(secretDir, 'proxy-secret');
writeFileSync(PROXY_SECRET_FILE, 'c2VjcmV0IG9mIHRoZSBjb25maWcgdGVzdHMgcHJveHk=\n', { mode: 0o600 });
afterAll(() => {
  rmSync(secretDir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('gives the embedded defaults (docs/deployment.md)', () => {
    const config = loadConfig({}, { cwd });
    expect(config).toMatchObject({
      host: 'portal.localhost',
      mtlsHost: 'mtls.portal.localhost',
      port: 8443,
      publicOrigin: 'https://portal.localhost:8443',
      mtlsOrigin: 'https://mtls.portal.localhost:8443',
      listenAddress: '127.0.0.1',
      dataDir: path.join(cwd, 'data'),
      sqliteFile: path.join(cwd, 'data', 'portal.sqlite'),
      databaseUrl: undefined,
      deployment: 'portal',
      takHost: 'tak.portal.localhost',
      takPort: 8089,
      idmConsoleUrl: 'https://portal.localhost:9443/admin/portal/console/',
      idmConsoleConfigured: false,
      trustedProxies: [],
      tlsCertFile: undefined,
      certificateValidityDays: 365,
      certBackdateMs: 720 * 60_000,
      crlValidityDays: 14,
      keyAlgorithm: 'rsa-2048',
      keysPerHour: 10,
      bodyLimitBytes: 65536,
      rateLimitFailures: 120,
      rateLimitWindowMs: 10 * 60 * 1000,
    });
    expect(config.adminCodeTtlMs).toBe(24 * 60 * 60 * 1000);
    expect(config.enrollmentGraceMs).toBe(7 * 24 * 60 * 60 * 1000);
  });

  it('reads the CRL validity in days', () => {
    expect(loadConfig({ PORTAL_CRL_VALIDITY_DAYS: '30' }, { cwd }).crlValidityDays).toBe(30);
  });

  it('reads the back-dating of certificates in minutes, 0 included', () => {
    expect(loadConfig({ PORTAL_CERT_BACKDATE_MINUTES: '0' }, { cwd }).certBackdateMs).toBe(0);
    expect(loadConfig({ PORTAL_CERT_BACKDATE_MINUTES: '60' }, { cwd }).certBackdateMs).toBe(
      3_600_000,
    );
  });

  it('derives names from PORTAL_HOST and leaves port 443 out of links', () => {
    const config = loadConfig({ PORTAL_HOST: 'Portal.Example.org', PORTAL_PORT: '443' }, { cwd });
    expect(config.host).toBe('portal.example.org');
    expect(config.publicOrigin).toBe('https://portal.example.org');
    expect(config.mtlsOrigin).toBe('https://mtls.portal.example.org');
    expect(config.deployment).toBe('portal');
    expect(config.takHost).toBe('tak.portal.example.org');
    expect(config.listenAddress).toBe('0.0.0.0');
  });

  it('uses the public port in links when it differs from the bound one', () => {
    const config = loadConfig({ PORTAL_PORT: '8443', PORTAL_PUBLIC_PORT: '443' }, { cwd });
    expect(config.port).toBe(8443);
    expect(config.publicOrigin).toBe('https://portal.localhost');
  });

  it('puts the CA files on plain http: the TLS port itself, or port 80 of the proxy', () => {
    expect(loadConfig({}, { cwd }).httpCaOrigin).toBe('http://portal.localhost:8443');
    expect(loadConfig({ PORTAL_PUBLIC_PORT: '443' }, { cwd }).httpCaOrigin).toBe(
      'http://portal.localhost:443',
    );
    expect(loadConfig({ PORTAL_PORT: '80' }, { cwd }).httpCaOrigin).toBe('http://portal.localhost');
    const proxy = {
      PORTAL_HOST: 'portal.example.org',
      PORTAL_TLS_MODE: 'proxy',
      PORTAL_TRUSTED_PROXIES: '127.0.0.1',
      PORTAL_PORT: '8080',
      PORTAL_PROXY_SECRET_FILE: PROXY_SECRET_FILE,
    };
    expect(loadConfig(proxy, { cwd }).httpCaOrigin).toBe('http://portal.example.org');
    expect(loadConfig({ ...proxy, PORTAL_PUBLIC_PORT: '8443' }, { cwd }).httpCaOrigin).toBe(
      'http://portal.example.org',
    );
  });

  it('caps the open connections at 1024 unless PORTAL_MAX_CONNECTIONS says otherwise', () => {
    expect(loadConfig({}, { cwd }).maxConnections).toBe(1024);
    expect(loadConfig({ PORTAL_MAX_CONNECTIONS: '50' }, { cwd }).maxConnections).toBe(50);
    expect(() => loadConfig({ PORTAL_MAX_CONNECTIONS: '0' }, { cwd })).toThrow(
      /PORTAL_MAX_CONNECTIONS: must be at least 1/,
    );
  });

  it('bounds the unproven connections of one address at a quarter of the cap unless PORTAL_MAX_UNPROVEN_PER_ADDRESS says otherwise', () => {
    const bound = (env: Record<string, string>) => loadConfig(env, { cwd }).maxUnprovenPerAddress;
    expect(bound({})).toBe(256);
    expect(bound({ PORTAL_MAX_CONNECTIONS: '40' })).toBe(10);
    expect(bound({ PORTAL_MAX_CONNECTIONS: '3' })).toBe(1);
    expect(bound({ PORTAL_MAX_CONNECTIONS: '40', PORTAL_MAX_UNPROVEN_PER_ADDRESS: '40' })).toBe(40);
    expect(() => bound({ PORTAL_MAX_UNPROVEN_PER_ADDRESS: '0' })).toThrow(
      /PORTAL_MAX_UNPROVEN_PER_ADDRESS: must be at least 1/,
    );
    expect(() =>
      bound({ PORTAL_MAX_CONNECTIONS: '40', PORTAL_MAX_UNPROVEN_PER_ADDRESS: '41' }),
    ).toThrow(/PORTAL_MAX_UNPROVEN_PER_ADDRESS: must be at most PORTAL_MAX_CONNECTIONS \(40\)/);
  });

  it('bounds all the connections of one address at half the cap unless PORTAL_MAX_CONNECTIONS_PER_ADDRESS says otherwise', () => {
    const bound = (env: Record<string, string>) =>
      loadConfig(env, { cwd }).maxConnectionsPerAddress;
    expect(bound({})).toBe(512);
    expect(bound({ PORTAL_MAX_CONNECTIONS: '40' })).toBe(20);
    expect(bound({ PORTAL_MAX_CONNECTIONS: '1' })).toBe(1);
    expect(bound({ PORTAL_MAX_CONNECTIONS: '40', PORTAL_MAX_CONNECTIONS_PER_ADDRESS: '40' })).toBe(
      40,
    );
    expect(() => bound({ PORTAL_MAX_CONNECTIONS_PER_ADDRESS: '0' })).toThrow(
      /PORTAL_MAX_CONNECTIONS_PER_ADDRESS: must be at least 1/,
    );
    expect(() =>
      bound({ PORTAL_MAX_CONNECTIONS: '40', PORTAL_MAX_CONNECTIONS_PER_ADDRESS: '41' }),
    ).toThrow(/PORTAL_MAX_CONNECTIONS_PER_ADDRESS: must be at most PORTAL_MAX_CONNECTIONS \(40\)/);
  });

  it('binds the metrics listener to 127.0.0.1:9464 unless PORTAL_METRICS_ADDRESS says otherwise', () => {
    const metrics = (value?: string) =>
      loadConfig(value === undefined ? {} : { PORTAL_METRICS_ADDRESS: value }, { cwd })
        .metricsAddress;
    expect(metrics()).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(metrics('10.0.0.5:9100')).toEqual({ host: '10.0.0.5', port: 9100 });
    expect(metrics('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(metrics('off')).toBeUndefined();
    expect(metrics('OFF')).toBeUndefined();
    expect(metrics('')).toBeUndefined();
    for (const bad of ['localhost:9464', '127.0.0.1', '::1:9464', '[127.0.0.1]:80', '1.2.3.4:0']) {
      expect(() => metrics(bad), bad).toThrow(/PORTAL_METRICS_ADDRESS: /);
    }
    expect(() => metrics('127.0.0.1:70000')).toThrow(/between 1 and 65535/);
  });

  it('pools 16 key pairs by default, refilling at half; 0 turns the pool off', () => {
    const pool = (env: Record<string, string>) => {
      const config = loadConfig(env, { cwd });
      return { size: config.keyPoolSize, lowWater: config.keyPoolLowWater };
    };
    expect(pool({})).toEqual({ size: 16, lowWater: 8 });
    expect(pool({ PORTAL_KEY_POOL_SIZE: '0' })).toEqual({ size: 0, lowWater: 0 });
    expect(pool({ PORTAL_KEY_POOL_SIZE: '4', PORTAL_KEY_POOL_LOW_WATER: '3' })).toEqual({
      size: 4,
      lowWater: 3,
    });
    expect(() => pool({ PORTAL_KEY_POOL_SIZE: '4', PORTAL_KEY_POOL_LOW_WATER: '4' })).toThrow(
      /PORTAL_KEY_POOL_LOW_WATER: must be less than PORTAL_KEY_POOL_SIZE \(4\)/,
    );
    expect(() => pool({ PORTAL_KEY_POOL_SIZE: '-1' })).toThrow(
      /PORTAL_KEY_POOL_SIZE: must be at least 0/,
    );
    expect(() => pool({ PORTAL_KEY_POOL_SIZE: 'many' })).toThrow(/PORTAL_KEY_POOL_SIZE: /);
    expect(() => pool({ PORTAL_KEY_POOL_SIZE: '2000' })).toThrow(/at most 1024/);
  });

  it('reads lists, URLs and files', () => {
    const config = loadConfig(
      {
        DATABASE_URL: 'postgres://portal@db.internal/portal',
        PORTAL_TRUSTED_PROXIES: '10.0.0.5, 192.168.1.0/24 ::1',
        PORTAL_TLS_CERT: 'tls/cert.pem',
        PORTAL_TLS_KEY: '/etc/portal/key.pem',
        PORTAL_DEPLOYMENT: 'alpha-unit',
      },
      { cwd },
    );
    expect(config.databaseUrl).toBe('postgres://portal@db.internal/portal');
    expect(config.trustedProxies).toEqual(['10.0.0.5', '192.168.1.0/24', '::1']);
    expect(config.tlsCertFile).toBe(path.join(cwd, 'tls/cert.pem'));
    expect(config.tlsKeyFile).toBe('/etc/portal/key.pem');
    expect(config.deployment).toBe('alpha-unit');
  });

  it('reserves the built-in callsigns, plus PORTAL_RESERVED_CALLSIGNS, lower-cased', () => {
    expect(loadConfig({}, { cwd }).reservedCallsigns).toEqual([
      'admin',
      'administrator',
      'webadmin',
      'takserver',
      'tak',
      'root',
      'system',
      'anonymous',
      'anon',
      'nobody',
    ]);
    const config = loadConfig({ PORTAL_RESERVED_CALLSIGNS: 'Ops1, HQstaff,,ROOT' }, { cwd });
    expect(config.reservedCallsigns).toContain('ops1');
    expect(config.reservedCallsigns).toContain('hqstaff');
    expect(config.reservedCallsigns.filter((name) => name === 'root')).toHaveLength(1);
  });

  it.each([
    ['PORTAL_RESERVED_CALLSIGNS', 'ops-1'],
    ['PORTAL_RESERVED_CALLSIGNS', 'Ops1,hq'],
    ['PORTAL_PORT', 'eighty'],
    ['PORTAL_PORT', '70000'],
    ['PORTAL_HOST', 'not a host!'],
    ['DATABASE_URL', 'mysql://db/portal'],
    ['PORTAL_TRUSTED_PROXIES', '10.0.0.5,not-an-ip'],
    ['PORTAL_KEY_ALGORITHM', 'rsa-1024'],
    ['PORTAL_CERT_VALIDITY_DAYS', '0'],
    ['PORTAL_CERT_BACKDATE_MINUTES', '-1'],
    ['PORTAL_CERT_BACKDATE_MINUTES', '10081'],
    ['PORTAL_CRL_VALIDITY_DAYS', '0'],
    ['PORTAL_CRL_VALIDITY_DAYS', '1.5'],
    ['PORTAL_CRL_VALIDITY_DAYS', '366'],
    ['PORTAL_KEYS_PER_HOUR', '0'],
    ['PORTAL_DEPLOYMENT', 'has spaces'],
    ['PORTAL_IDM_CONSOLE_URL', 'ftp://idm'],
    ['PORTAL_TAK_TRUSTSTORE_PASSWORD', ''],
    ['PORTAL_TAK_TRUSTSTORE_PASSWORD', 'tab\there'],
    ['PORTAL_TAK_TRUSTSTORE_PEM', '/nonexistent/tak-ca.pem'],
    ['PORTAL_TLS_MODE', 'nginx'],
  ])('stops with a message naming %s when it is %j', (variable, value) => {
    expect(() => loadConfig({ [variable]: value }, { cwd })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value }, { cwd })).toThrow(variable);
  });

  it('behind a proxy: plain HTTP on loopback, links on 443, and the proxy must be named', () => {
    expect(loadConfig({}, { cwd }).tlsMode).toBe('builtin');
    const config = loadConfig(
      {
        PORTAL_HOST: 'portal.example.org',
        PORTAL_TLS_MODE: 'proxy',
        PORTAL_PORT: '8080',
        PORTAL_TRUSTED_PROXIES: '10.0.0.5',
        PORTAL_PROXY_SECRET_FILE: PROXY_SECRET_FILE,
      },
      { cwd },
    );
    expect(config).toMatchObject({
      tlsMode: 'proxy',
      port: 8080,
      listenAddress: '127.0.0.1',
      publicOrigin: 'https://portal.example.org',
      mtlsOrigin: 'https://mtls.portal.example.org',
    });
    expect(() => loadConfig({ PORTAL_TLS_MODE: 'proxy' }, { cwd })).toThrow(
      /PORTAL_TRUSTED_PROXIES: must name the proxy/,
    );
  });

  it('refuses proxy mode without the proxy’s secret, naming why (docs/deployment.md)', () => {
    const proxy = { PORTAL_TLS_MODE: 'proxy', PORTAL_TRUSTED_PROXIES: '127.0.0.1' };
    expect(() => loadConfig(proxy, { cwd })).toThrow(ConfigError);
    expect(() => loadConfig(proxy, { cwd })).toThrow(
      /\n {2}PORTAL_PROXY_SECRET_FILE: required when PORTAL_TLS_MODE=proxy: without it any local process that reaches the listener could forge a member's certificate headers$/,
    );
  });

  it('refuses certificate files in proxy mode, where they would be silently unused', () => {
    const proxy = {
      PORTAL_TLS_MODE: 'proxy',
      PORTAL_TRUSTED_PROXIES: '127.0.0.1',
      PORTAL_PROXY_SECRET_FILE: PROXY_SECRET_FILE,
    };
    expect(() =>
      loadConfig({ ...proxy, PORTAL_TLS_CERT: 'cert.pem', PORTAL_TLS_KEY: 'key.pem' }, { cwd }),
    ).toThrow(/PORTAL_TLS_CERT, PORTAL_TLS_KEY: not used when PORTAL_TLS_MODE=proxy/);
    expect(loadConfig(proxy, { cwd }).tlsMode).toBe('proxy');
  });

  it('reads the proxy’s secret from PORTAL_PROXY_SECRET_FILE, in proxy mode only', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-config-'));
    const proxy = { PORTAL_TLS_MODE: 'proxy', PORTAL_TRUSTED_PROXIES: '127.0.0.1' };
    const secret = 'Zm9yIHRoZSBwcm94eSBvbmx5LCAzMiBieXRlcyBvciBtb3Jl';
    try {
      await writeFile(path.join(dir, 'proxy-secret'), `${secret}\n`, { mode: 0o600 });
      const config = loadConfig(
        { ...proxy, PORTAL_PROXY_SECRET_FILE: 'proxy-secret' },
        { cwd: dir },
      );
      expect(config.proxySecret).toBe(secret);

      const refused = async (text: string, reason: RegExp) => {
        await writeFile(path.join(dir, 'bad'), text);
        expect(() =>
          loadConfig({ ...proxy, PORTAL_PROXY_SECRET_FILE: 'bad' }, { cwd: dir }),
        ).toThrow(reason);
      };
      await refused('short', /PORTAL_PROXY_SECRET_FILE: .* at least 32 characters/);
      await refused(`${secret} ${secret}`, /PORTAL_PROXY_SECRET_FILE: .* letters, digits/);
      await refused(`${secret}"`, /PORTAL_PROXY_SECRET_FILE: .* letters, digits/);
      expect(() =>
        loadConfig({ ...proxy, PORTAL_PROXY_SECRET_FILE: 'missing' }, { cwd: dir }),
      ).toThrow(/PORTAL_PROXY_SECRET_FILE: cannot read/);
      expect(() => loadConfig({ PORTAL_PROXY_SECRET_FILE: 'proxy-secret' }, { cwd: dir })).toThrow(
        /PORTAL_PROXY_SECRET_FILE: only used when PORTAL_TLS_MODE=proxy/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('has no directory by default, and reads all of PORTAL_LDAP_* or refuses with a clear error', async () => {
    expect(loadConfig({}, { cwd }).ldap).toBeUndefined();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-ldap-config-'));
    try {
      const file = path.join(dir, 'bind-password');
      await writeFile(file, '  s3cret\n');
      const env = {
        PORTAL_LDAP_URL: 'ldap://127.0.0.1:389',
        PORTAL_LDAP_BIND_DN: 'cn=portal,dc=unit,dc=example',
        PORTAL_LDAP_BIND_PASSWORD_FILE: file,
        PORTAL_LDAP_BASE_DN: 'ou=callsign-portal,dc=unit,dc=example',
      };
      expect(loadConfig(env, { cwd }).ldap).toEqual({
        url: 'ldap://127.0.0.1:389',
        bindDn: 'cn=portal,dc=unit,dc=example',
        bindPassword: 's3cret',
        baseDn: 'ou=callsign-portal,dc=unit,dc=example',
        groupPrefix: 'tak_',
      });
      const refusal = (overrides: Record<string, string | undefined>) => {
        try {
          loadConfig({ ...env, ...overrides }, { cwd });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          return (error as Error).message;
        }
        return 'accepted';
      };
      expect(refusal({ PORTAL_LDAP_URL: 'http://directory' })).toMatch(
        /PORTAL_LDAP_URL: must be an ldap:\/\/ or ldaps:\/\/ URL/,
      );
      expect(refusal({ PORTAL_LDAP_BASE_DN: undefined })).toMatch(
        /PORTAL_LDAP_BASE_DN: required with the other PORTAL_LDAP_\* settings/,
      );
      expect(refusal({ PORTAL_LDAP_BIND_DN: 'portal' })).toMatch(
        /PORTAL_LDAP_BIND_DN: must be a distinguished name/,
      );
      expect(refusal({ PORTAL_LDAP_BIND_PASSWORD_FILE: path.join(dir, 'missing') })).toMatch(
        /PORTAL_LDAP_BIND_PASSWORD_FILE: cannot read/,
      );
      expect(refusal({ PORTAL_LDAP_GROUP_PREFIX: 'tak prefix' })).toMatch(
        /PORTAL_LDAP_GROUP_PREFIX: must be 1 to 32/,
      );
      await writeFile(file, '\n');
      expect(refusal({})).toMatch(/PORTAL_LDAP_BIND_PASSWORD_FILE: .* is empty/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('wants both TLS files or neither', () => {
    expect(() => loadConfig({ PORTAL_TLS_CERT: 'cert.pem' }, { cwd })).toThrow(
      /PORTAL_TLS_CERT, PORTAL_TLS_KEY/,
    );
  });

  it('takes the TAK truststore from the CA chain with password "public" by default', () => {
    const config = loadConfig({}, { cwd });
    expect(config.takTruststorePemFile).toBeUndefined();
    expect(config.takTruststorePassword).toBe('public');
  });

  it('reads the TAK truststore settings and checks the PEM file holds a certificate', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-config-'));
    try {
      const pem = path.join(dir, 'tak-ca.pem');
      await writeFile(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
      const config = loadConfig(
        {
          PORTAL_TAK_TRUSTSTORE_PEM: 'tak-ca.pem',
          PORTAL_TAK_TRUSTSTORE_PASSWORD: 'Tr&st<"me\'',
          TAK_HOST: 'TAK.Example.org',
          TAK_PORT: '8443',
        },
        { cwd: dir },
      );
      expect(config.takTruststorePemFile).toBe(pem);
      expect(config.takTruststorePassword).toBe('Tr&st<"me\'');
      expect(config.takHost).toBe('tak.example.org');
      expect(config.takPort).toBe(8443);

      const notPem = path.join(dir, 'key.pem');
      await writeFile(notPem, '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n');
      expect(() => loadConfig({ PORTAL_TAK_TRUSTSTORE_PEM: notPem }, { cwd })).toThrow(
        /PORTAL_TAK_TRUSTSTORE_PEM: .* holds no PEM certificate/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('the TAK enrollment face', () => {
    const proxy = {
      PORTAL_TLS_MODE: 'proxy',
      PORTAL_TRUSTED_PROXIES: '127.0.0.1',
      PORTAL_PROXY_SECRET_FILE: PROXY_SECRET_FILE,
    };

    it('listens on 8446 with a certificate from the portal CA and 15-minute tokens by default', () => {
      expect(loadConfig({}, { cwd }).takEnroll).toEqual({
        port: 8446,
        publicPort: 8446,
        tlsCertFile: undefined,
        tlsKeyFile: undefined,
        publiclyTrusted: undefined,
        tokenTtlMs: 15 * 60_000,
      });
    });

    it('is switched off with off, in any case', () => {
      expect(loadConfig({ PORTAL_TAK_ENROLL_PORT: 'off' }, { cwd }).takEnroll).toBeUndefined();
      expect(loadConfig({ PORTAL_TAK_ENROLL_PORT: 'OFF' }, { cwd }).takEnroll).toBeUndefined();
    });

    it('takes an operator certificate (whether phones trust it is computed at start)', () => {
      const config = loadConfig(
        {
          PORTAL_TAK_ENROLL_PORT: '9446',
          PORTAL_TAK_ENROLL_TLS_CERT: 'tls/tak.crt',
          PORTAL_TAK_ENROLL_TLS_KEY: 'tls/tak.key',
          PORTAL_TAK_ENROLL_TOKEN_MINUTES: '5',
        },
        { cwd },
      );
      expect(config.takEnroll).toEqual({
        port: 9446,
        publicPort: 9446,
        tlsCertFile: path.join(cwd, 'tls/tak.crt'),
        tlsKeyFile: path.join(cwd, 'tls/tak.key'),
        publiclyTrusted: undefined,
        tokenTtlMs: 5 * 60_000,
      });
    });

    it('behind the proxy binds plain HTTP and tells clients about nginx’s 8446', () => {
      const config = loadConfig({ ...proxy, PORTAL_TAK_ENROLL_PORT: '9446' }, { cwd });
      expect(config.takEnroll).toMatchObject({
        port: 9446,
        publicPort: 8446,
        publiclyTrusted: false,
      });
    });

    it('behind the proxy takes PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED for nginx’s certificate', () => {
      for (const [value, trusted] of [
        ['true', true],
        ['TRUE', true],
        ['false', false],
        ['', false],
      ] as const) {
        const config = loadConfig({ ...proxy, PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED: value }, { cwd });
        expect(config.takEnroll?.publiclyTrusted).toBe(trusted);
      }
    });

    it.each([
      [
        { PORTAL_TAK_ENROLL_PORT: 'eighty' },
        /PORTAL_TAK_ENROLL_PORT: must be a port number, or off/,
      ],
      [{ PORTAL_TAK_ENROLL_PORT: '70000' }, /PORTAL_TAK_ENROLL_PORT/],
      [{ PORTAL_TAK_ENROLL_PORT: '8443' }, /PORTAL_TAK_ENROLL_PORT: must differ from PORTAL_PORT/],
      [{ PORTAL_TAK_ENROLL_TLS_CERT: 'a.pem' }, /give both files or neither/],
      [
        { ...proxy, PORTAL_TAK_ENROLL_TLS_CERT: 'a.pem', PORTAL_TAK_ENROLL_TLS_KEY: 'b.pem' },
        /PORTAL_TAK_ENROLL_TLS_CERT, PORTAL_TAK_ENROLL_TLS_KEY: not used when PORTAL_TLS_MODE=proxy/,
      ],
      [{ PORTAL_TAK_ENROLL_TOKEN_MINUTES: '0' }, /PORTAL_TAK_ENROLL_TOKEN_MINUTES/],
      [
        { ...proxy, PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED: 'yes' },
        /PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED: must be true or false/,
      ],
      [
        { PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED: 'true' },
        /PORTAL_TAK_ENROLL_PUBLICLY_TRUSTED: only for PORTAL_TLS_MODE=proxy/,
      ],
    ])('refuses %o, naming the variable', (env, message) => {
      expect(() => loadConfig(env, { cwd })).toThrow(ConfigError);
      expect(() => loadConfig(env, { cwd })).toThrow(message);
    });
  });
});

describe('the documentation of the settings', () => {
  // The settings table of docs/deployment.md: one row per variable, its name in the first column.
  const deploymentDoc = readFileSync(
    new URL('../../../docs/deployment.md', import.meta.url),
    'utf8',
  );
  const documented = new Set(
    deploymentDoc
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)])
      .map((match) => match[1]),
  );

  it('names every variable the configuration reads in the settings table', () => {
    expect(ENVIRONMENT_VARIABLES.length).toBeGreaterThan(30);
    expect(ENVIRONMENT_VARIABLES.filter((name) => !documented.has(name))).toEqual([]);
  });
});
