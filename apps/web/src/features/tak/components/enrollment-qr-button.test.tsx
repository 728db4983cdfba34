import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { takPaths, type TakEnrollmentTokenResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { EnrollmentQrButton } from './enrollment-qr-button';

listenWithMockApi();

/** The station's answer for Alpha1 (`registration_qr` a fake of the §14 form until issue 28). */
function stationAnswer(trusted: boolean): TakEnrollmentTokenResponse {
  return {
    username: 'Alpha1',
    token: 'ABCDEFGHJKLM',
    expires_at: new Date(Date.now() + 15 * 60_000).toISOString(),
    host: 'tak.demo.example',
    port: 8446,
    atak_uri:
      'tak://com.atakmap.app/enroll?host=tak.demo.example&username=Alpha1&token=ABCDEFGHJKLM',
    itak_qr: 'demo,tak.demo.example,8089,ssl',
    registration_qr: '{"type":"registration"}',
    trusted_by_phones: trusted,
  };
}

async function openStation(trusted: boolean) {
  server.use(
    http.post(takPaths.enrollmentTokenFor('Alpha1'), () =>
      HttpResponse.json(stationAnswer(trusted)),
    ),
  );
  renderWithProviders(<EnrollmentQrButton callsign="Alpha1" />);
  await userEvent.click(screen.getByRole('button', { name: 'Enrollment QR' }));
  const dialog = await screen.findByRole('dialog', { name: 'Enrollment QR for Alpha1' });
  await within(dialog).findByTestId('tak-enroll-token');
  return dialog;
}

describe('the enrollment station (an admin’s Enrollment QR)', () => {
  it('shows the codes as a laptop does: every QR code, never "Open in ATAK"', async () => {
    const dialog = await openStation(true);
    expect(within(dialog).queryByRole('link', { name: /Open in ATAK/ })).toBeNull();
    expect(
      within(dialog)
        .getAllByRole('img')
        .map((img) => img.getAttribute('aria-label')),
    ).toEqual(['QR code for ATAK', 'QR code for iTAK', 'QR code for TAK Tracker and TAKAware']);
  });

  it('where phones need it, puts the trust package’s QR codes first', async () => {
    const dialog = await openStation(false);
    expect(
      within(dialog)
        .getAllByRole('img')
        .map((img) => img.getAttribute('aria-label')),
    ).toEqual([
      'QR code: the trust package for ATAK',
      'QR code: the trust package for iTAK',
      'QR code for ATAK',
      'QR code for iTAK',
      'QR code for TAK Tracker and TAKAware',
    ]);
    // No download: the admin's own trust package would carry the admin's user name.
    expect(within(dialog).queryByRole('button', { name: /Trust package for/ })).toBeNull();
  });
});
