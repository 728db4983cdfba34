import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { AuthProvider } from '../features/auth/components/auth-provider';
import { waitLongerInThisFile } from '../test/patient';
import { renderWithProviders } from '../test/render';
import { server } from '../test/server';
import { listenWithMockApi } from '../test/server';
import { AppRoutes } from './router';
// The admin area is a lazy chunk: loaded here first, so that its pages show at once.
import './routes/admin-pages';
import { memberRow } from '../test/member-row';

listenWithMockApi();

// The old code failed 2 runs in 3 at a load of 25 on 2 cores with the default second.
waitLongerInThisFile();

/** Signed in with the key of admin Chief1; the console address as the server is configured. */
function signedInAdmin(
  idm: () => Response = () => HttpResponse.json({ idm_console_url: CONSOLE, configured: true }),
  renewCaBy: string | null = null,
) {
  const identity = { type: 'mtls', userid: 'Chief1', payload: {} };
  server.use(
    http.get(apiPaths.checkAuthAny, () => HttpResponse.json(identity)),
    http.get(apiPaths.checkAuthValidUser, () => HttpResponse.json(identity)),
    http.get(apiPaths.checkAuthAdmin, () => HttpResponse.json(identity)),
    http.get(apiPaths.idmConsole, idm),
    http.get(apiPaths.myKeys, () =>
      HttpResponse.json({ keys: [], last_seen_tak_at: null, renew_ca_by: renewCaBy }),
    ),
    http.get(apiPaths.caExpiry, () => HttpResponse.json(caExpiry)),
    http.get(apiPaths.takReadiness, () =>
      HttpResponse.json({
        tak: { host: 'tak.field.example', port: 8089 },
        truststore: { source: 'portal-ca', file: null, certificates: [], error: null },
        crl: {
          number: '1',
          this_update: '2026-11-22T10:00:00.000Z',
          next_update: '2026-12-06T10:00:00.000Z',
          age_seconds: 60,
          url: 'http://field.example/ca/crl.pem',
        },
        presence: {
          last_ocsp_check: null,
          last_crl_fetch: null,
          crl_fetch_warn_after_seconds: 604_800,
          members_seen_last_day: 0,
          warnings: ['no-ocsp-check', 'no-crl-fetch'],
        },
        check_command: 'npm run --silent portal -- tak-check',
        enrollment: null,
      }),
    ),
    http.get(apiPaths.audit, () => HttpResponse.json({ events: [], next_before: null })),
    http.get(apiPaths.directory, () =>
      HttpResponse.json({
        configured: false,
        url: null,
        base_dn: null,
        in_sync: false,
        last_sync: null,
        last_error: null,
        pending: 0,
        entry_errors: [],
      }),
    ),
    http.get(apiPaths.groups, () => HttpResponse.json({ groups: [] })),
    http.get(apiPaths.healthcheck, () =>
      HttpResponse.json({
        healthcheck: 'success',
        dns: 'localhost',
        version: '1',
        deployment: 'Field',
      }),
    ),
  );
}

const CONSOLE = 'https://idm.example.org:9443/admin/field/console/';

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
/** The CAs of a portal made four years ago: the issuing CA has a year and a bit left. */
let caExpiry = {
  issuing: { subject: 'CN=Field Issuing CA', expires_at: inDays(400) },
  root: { subject: 'CN=Field Root CA', expires_at: inDays(5800) },
  chain: [
    {
      subject: 'O=TAK\nCN=Field Issuing CA',
      expires_at: inDays(400),
      signs_members: true,
      self_signed: false,
    },
    {
      subject: 'C=US\nO=TAK\nCN=Field Root CA',
      expires_at: inDays(5800),
      signs_members: false,
      self_signed: true,
    },
  ],
  rollover: {
    state: 'none' as 'none' | 'overlap',
    generation: 1,
    can_roll_over: true,
    begun_at: null as string | null,
    renew_by: null as string | null,
    finished_at: null,
    previous: null as { generation: number; subject: string; expires_at: string } | null,
    members_on_previous: 0,
    keys_on_previous: 0,
    next: 'nothing' as 'nothing' | 'begin' | 'renew' | 'finish' | 'new-root',
  },
};

/** The app's route table, signed in as the server answers. */
function renderArea(path: string) {
  return renderWithProviders(
    <AuthProvider>
      <AppRoutes />
    </AuthProvider>,
    { path },
  );
}

describe('the admin area in the route table', () => {
  it('/app/admin welcomes the admin by callsign and leads to manageusers', async () => {
    signedInAdmin();
    renderArea('/app/admin');
    expect(await screen.findByText('Welcome, Chief1')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Manage users' })).toHaveAttribute(
      'href',
      '/app/admin/manageusers',
    );
    expect(screen.getByRole('heading', { name: 'TAK' })).toBeInTheDocument();
    expect(await screen.findByText('tak.field.example:8089')).toBeInTheDocument();
    expect(
      await screen.findByText(/No directory is configured: groups show in the portal only/),
    ).toBeInTheDocument();
    // The directory card's link and the admin navigation's: both to the groups page.
    const groupLinks = screen.getAllByRole('link', { name: 'Groups' });
    expect(groupLinks).toHaveLength(2);
    for (const link of groupLinks) expect(link).toHaveAttribute('href', '/app/admin/groups');
  });

  it('/app/admin shows when the CAs expire, and the admin’s own keys', async () => {
    signedInAdmin();
    renderArea('/app/admin');
    expect(
      await screen.findByRole('heading', { name: 'Certificate authority' }),
    ).toBeInTheDocument();
    expect(await screen.findByText('Issuing CA')).toBeInTheDocument();
    // The chain by common name, the CA that signs keys first.
    const chain = within(screen.getByRole('list', { name: /Chain of trust/ })).getAllByRole(
      'listitem',
    );
    expect(chain.map((item) => item.textContent)).toEqual([
      expect.stringMatching(/^Field Issuing CASigns the members' keys · Expires on /),
      expect.stringMatching(/^Field Root CARoot \(trust anchor\) · Expires on /),
    ]);
    expect(screen.queryByText(/expires in \d+ days/)).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Your keys' })).toHaveAttribute('href', '/app/keys');
  });

  it('/app/admin warns a year before a CA expires', async () => {
    caExpiry = { ...caExpiry, issuing: { ...caExpiry.issuing, expires_at: inDays(200.5) } };
    signedInAdmin();
    renderArea('/app/admin');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The Issuing CA expires in 201 days.',
    );
  });

  it('/app/admin shows a rollover under way: members still on the old CA, the date, what next', async () => {
    caExpiry = {
      ...caExpiry,
      rollover: {
        ...caExpiry.rollover,
        state: 'overlap',
        generation: 2,
        begun_at: '2026-11-20T10:00:00.000Z',
        renew_by: '2026-12-20T23:59:59.000Z',
        previous: { generation: 1, subject: 'CN=Field Issuing CA', expires_at: inDays(400) },
        members_on_previous: 3,
        keys_on_previous: 4,
        next: 'renew',
      },
    };
    signedInAdmin(undefined, '2026-12-20T23:59:59.000Z');
    renderArea('/app/admin');
    const rollover = await screen.findByRole('region', { name: 'Rollover' });
    expect(rollover).toHaveTextContent(
      'Rollover under way since 20 Nov 2026: new keys come from issuing CA 2, and issuing CA 1 is still trusted',
    );
    expect(rollover).toHaveTextContent('3 members still hold a key of the old issuing CA.');
    expect(rollover).toHaveTextContent('asked to renew by 20 Dec 2026');
    expect(rollover).toHaveTextContent('Next: the members above renew their keys.');
    // The admin's own key is on the old CA too: the banner with the date, to the key page.
    const banner = await screen.findByRole('region', { name: /^Get a new key by / });
    expect(within(banner).getByRole('link', { name: 'Get a new key' })).toHaveAttribute(
      'href',
      '/app/keys',
    );
  });

  it('/app/admin without a rollover: the issuing CA in use and nothing to do, no banner', async () => {
    caExpiry = {
      ...caExpiry,
      rollover: { ...caExpiry.rollover, state: 'none', generation: 1, next: 'nothing' },
    };
    signedInAdmin();
    renderArea('/app/admin');
    const rollover = await screen.findByRole('region', { name: 'Rollover' });
    expect(rollover).toHaveTextContent('New keys come from issuing CA 1.Nothing to do now.');
    expect(screen.queryByRole('region', { name: /^Get a new key by / })).not.toBeInTheDocument();
  });

  it('manageusers: five link cards and the console the server names, in a new tab', async () => {
    signedInAdmin();
    renderArea('/app/admin/manageusers');
    const console = await screen.findByRole('link', {
      name: /Open the identity-management console/,
    });
    expect(console).toHaveAttribute('href', CONSOLE);
    expect(console).toHaveAttribute('target', '_blank');
    expect(console).toHaveAttribute('rel', 'noopener noreferrer');
    expect(screen.getByRole('link', { name: /^Add users/ })).toHaveAttribute(
      'href',
      '/app/admin/user-management/code-list',
    );
    expect(screen.getByRole('link', { name: /^Approve users/ })).toHaveAttribute(
      'href',
      '/app/admin/user-management/approval',
    );
    expect(screen.getByRole('link', { name: /^Manage users/ })).toHaveAttribute(
      'href',
      '/app/admin/user-management',
    );
    expect(screen.getByRole('link', { name: /^Audit log/ })).toHaveAttribute(
      'href',
      '/app/admin/audit',
    );
    expect(screen.getByRole('link', { name: /^Expiring keys/ })).toHaveAttribute(
      'href',
      '/app/admin/user-management/expiring-keys',
    );
  });

  it('the spec’s /app/admin/user-management (a bookmark) reaches the one members table', async () => {
    signedInAdmin();
    server.use(
      http.get(apiPaths.members, () =>
        HttpResponse.json({ members: [memberRow('Ranger1', false)], next: null }),
      ),
      http.get(apiPaths.enrollmentList, () => HttpResponse.json({ callsign_list: [] })),
    );
    renderArea('/app/admin/user-management');
    expect(await screen.findByRole('heading', { level: 1, name: 'Members' })).toBeVisible();
    expect(screen.getByRole('searchbox', { name: 'Search' })).toBeInTheDocument();
    const ranger = await screen.findAllByRole('link', { name: 'Ranger1' });
    expect(ranger[0]).toHaveAttribute('href', '/app/admin/people/Ranger1');
    // One item of the admin navigation is current: Members.
    const nav = screen.getByRole('navigation', { name: 'Admin area' });
    const current = within(nav)
      .getAllByRole('link')
      .filter((link) => link.getAttribute('aria-current') === 'page');
    expect(current.map((link) => link.textContent)).toEqual(['Members']);
  });

  it('/app/admin/groups is the groups page', async () => {
    signedInAdmin();
    renderArea('/app/admin/groups');
    expect(await screen.findByRole('heading', { level: 1, name: 'Groups' })).toBeVisible();
    expect(await screen.findByText('No groups yet.')).toBeVisible();
  });

  it('/app/admin/audit is the audit log', async () => {
    signedInAdmin();
    renderArea('/app/admin/audit');
    expect(await screen.findByRole('heading', { name: 'Audit log', level: 1 })).toBeInTheDocument();
    expect(await screen.findByText('No events match the filters.')).toBeInTheDocument();
  });

  it('manageusers shows no console link on a default install, where the address points nowhere', async () => {
    signedInAdmin(() =>
      HttpResponse.json({
        idm_console_url: 'https://portal.example:9443/admin/portal/console/',
        configured: false,
      }),
    );
    renderArea('/app/admin/manageusers');
    expect(
      await screen.findByText(/No identity-management console is set up for this portal/),
    ).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /console/ })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: /^Manage users/ })).toBeInTheDocument();
  });

  it('manageusers says so when the console address cannot be had', async () => {
    signedInAdmin(() => HttpResponse.json({ detail: 'Not an admin' }, { status: 403 }));
    renderArea('/app/admin/manageusers');
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Not an admin');
    expect(screen.queryByRole('link', { name: /console/ })).not.toBeInTheDocument();
  });

  it('any other admin path is the not-found page', async () => {
    signedInAdmin();
    renderArea('/app/admin/user-management/nothing-here');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
  });
});
