import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { apiPaths, type TakReadinessResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { TakReadinessCard } from './tak-readiness';

listenWithMockApi();

const FACTS: TakReadinessResponse = {
  tak: { host: 'tak.example.org', port: 8089 },
  truststore: {
    source: 'portal-ca',
    file: null,
    certificates: [
      {
        subject: 'CN=Example Issuing CA',
        issuer: 'CN=Example Root CA',
        not_after: '2031-01-01T00:00:00.000Z',
        expired: false,
      },
      {
        subject: 'CN=Example Root CA',
        issuer: 'CN=Example Root CA',
        not_after: '2025-01-01T00:00:00.000Z',
        expired: true,
      },
    ],
    error: null,
  },
  crl: {
    number: '1795529541964',
    this_update: '2026-11-22T10:00:00.000Z',
    next_update: '2026-12-06T10:00:00.000Z',
    age_seconds: 3 * 3600 + 120,
    url: 'http://portal.example.org/ca/crl.pem',
  },
  presence: {
    last_ocsp_check: { at: '2026-11-22T13:00:00.000Z', address: '10.0.0.5', age_seconds: 150 },
    last_crl_fetch: { at: '2026-11-22T12:00:00.000Z', address: '10.0.0.5', age_seconds: 3700 },
    crl_fetch_warn_after_seconds: 7 * 86_400,
    members_seen_last_day: 3,
    warnings: [],
  },
  check_command: 'npm run --silent portal -- tak-check --host tak.example.org --port 8089',
  enrollment: {
    host: 'tak.example.org',
    port: 8446,
    trusted_by_phones: true,
    trust_basis: 'root',
    root: 'ISRG Root X1',
    chain_end: null,
    warnings: [],
  },
};

function serve(facts: TakReadinessResponse) {
  server.use(http.get(apiPaths.takReadiness, () => HttpResponse.json(facts)));
}

describe('the TAK readiness card', () => {
  it('shows the TAK server, the truststore, the CRL and the check command', async () => {
    serve(FACTS);
    renderWithProviders(<TakReadinessCard />);
    expect(await screen.findByText('tak.example.org:8089')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'TAK Server readiness' })).toBeInTheDocument();
    expect(screen.getByText("The portal's CA chain")).toBeInTheDocument();
    expect(screen.getByText('CN=Example Issuing CA')).toBeInTheDocument();
    expect(screen.getByText(/^expires /)).toBeInTheDocument();
    expect(screen.getByText(/^expired /)).toHaveClass('text-red-800');
    expect(screen.getByText('1795529541964')).toBeInTheDocument();
    expect(screen.getByText('3 hours')).toBeInTheDocument();
    expect(screen.getByText('http://portal.example.org/ca/crl.pem')).toBeInTheDocument();
    expect(screen.getByText(FACTS.check_command)).toBeInTheDocument();
  });

  it('says which TAK Server last checked a key and fetched the CRL, and how many members it saw', async () => {
    serve(FACTS);
    renderWithProviders(<TakReadinessCard />);
    expect(
      await screen.findByText('TAK Server at 10.0.0.5 last checked a key 2 minutes ago'),
    ).toBeInTheDocument();
    expect(screen.getByText('The CRL was last fetched by 10.0.0.5 1 hour ago')).toBeInTheDocument();
    expect(screen.getByText('3 members seen by a TAK Server in the last day')).toBeInTheDocument();
    expect(screen.queryByText(/No TAK Server|No one has fetched|over 7 days/)).toBeNull();
  });

  it('warns when no TAK Server checked a key for a day and the CRL fetch is past half its validity', async () => {
    serve({
      ...FACTS,
      presence: {
        ...FACTS.presence,
        last_ocsp_check: { ...FACTS.presence.last_ocsp_check!, age_seconds: 2 * 86_400 },
        last_crl_fetch: { ...FACTS.presence.last_crl_fetch!, age_seconds: 8 * 86_400 },
        members_seen_last_day: 0,
        warnings: ['ocsp-check-old', 'crl-fetch-old'],
      },
    });
    renderWithProviders(<TakReadinessCard />);
    expect(
      await screen.findByText(/No TAK Server has checked a key for over a day/),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/The CRL was last fetched over 7 days ago, half its validity/),
    ).toBeInTheDocument();
    expect(screen.getByText('0 members seen by a TAK Server in the last day')).toBeInTheDocument();
  });

  it('warns when no TAK Server ever checked a key or fetched the CRL', async () => {
    serve({
      ...FACTS,
      presence: {
        ...FACTS.presence,
        last_ocsp_check: null,
        last_crl_fetch: null,
        members_seen_last_day: 0,
        warnings: ['no-ocsp-check', 'no-crl-fetch'],
      },
    });
    renderWithProviders(<TakReadinessCard />);
    expect(await screen.findByText(/No TAK Server has checked a key yet/)).toBeInTheDocument();
    expect(screen.getByText(/No one has fetched the CRL yet/)).toBeInTheDocument();
    expect(screen.queryByText(/last checked a key/)).toBeNull();
  });

  it('names the truststore file and says when it cannot be read', async () => {
    serve({
      ...FACTS,
      truststore: {
        source: 'file',
        file: '/etc/tak/ca.pem',
        certificates: [],
        error: "ENOENT: no such file or directory, open '/etc/tak/ca.pem'",
      },
    });
    renderWithProviders(<TakReadinessCard />);
    expect(await screen.findByText('The file /etc/tak/ca.pem')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'The truststore cannot be read: ENOENT: no such file or directory',
    );
  });

  it('shows where phones enroll and that the QR code alone works there', async () => {
    serve(FACTS);
    renderWithProviders(<TakReadinessCard />);
    expect(await screen.findByText('tak.example.org:8446')).toBeInTheDocument();
    expect(
      screen.getByText(
        'Phones trust its certificate by themselves (it chains to ISRG Root X1): the QR code alone enrolls.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/port 8446 of the TAK host|trust package/)).toBeNull();
  });

  it('warns when the public port is not 8446 and phones need the trust package', async () => {
    serve({
      ...FACTS,
      enrollment: {
        host: 'tak.example.org',
        port: 9446,
        trusted_by_phones: false,
        trust_basis: 'unknown-root',
        root: null,
        chain_end: 'Callsign Portal Root CA',
        warnings: ['port-not-8446', 'phones-need-trust-package'],
      },
    });
    renderWithProviders(<TakReadinessCard />);
    expect(await screen.findByText('tak.example.org:9446')).toBeInTheDocument();
    expect(
      screen.getByText(/on port 9446, but ATAK always enrolls on port 8446 of the TAK host/),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /Phones will need the trust package before the QR code works: its certificate chains to Callsign Portal Root CA, not to a root ATAK trusts\./,
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/the QR code alone enrolls/)).toBeNull();
  });

  it('says when TAK enrollment is off', async () => {
    serve({ ...FACTS, enrollment: null });
    renderWithProviders(<TakReadinessCard />);
    expect(await screen.findByText(/^Off \(PORTAL_TAK_ENROLL_PORT=off\)/)).toBeInTheDocument();
  });

  it('speaks Finnish', async () => {
    serve(FACTS);
    renderWithProviders(<TakReadinessCard />, { language: 'fi' });
    expect(
      await screen.findByRole('heading', { name: 'TAK-palvelimen valmius' }),
    ).toBeInTheDocument();
    expect(await screen.findByText('3 tuntia')).toBeInTheDocument();
    expect(screen.getByText('Tarkista TAK-palvelin')).toBeInTheDocument();
    expect(
      screen.getByText('TAK-palvelin osoitteessa 10.0.0.5 tarkisti avaimen 2 minuuttia sitten'),
    ).toBeInTheDocument();
    expect(screen.getByText('Mistä puhelimet hakevat varmenteen')).toBeInTheDocument();
    expect(screen.getByText(/pelkkä QR-koodi riittää/)).toBeInTheDocument();
  });
});
