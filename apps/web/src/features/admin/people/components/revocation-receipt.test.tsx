import type { RevocationReceipt } from '@callsign/contract';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../../test/render';
import { RevocationReceiptDialog } from './revocation-receipt';

const CONFIRMED: RevocationReceipt = {
  certificates_revoked: 3,
  crl: {
    number: '1764000000123',
    this_update: '2026-11-24T16:00:00.000Z',
    next_update: '2026-12-08T16:00:00.000Z',
    lists_revoked: 3,
  },
  newest_serial: '7c1e9a',
  ocsp: {
    status: 'revoked',
    revoked_at: '2026-11-24T15:59:59.000Z',
    produced_at: '2026-11-24T16:00:01.000Z',
  },
};

function show(receipt: RevocationReceipt, language?: string) {
  const onClose = vi.fn();
  renderWithProviders(
    <RevocationReceiptDialog callsign="Ranger2" receipt={receipt} onClose={onClose} />,
    language === undefined ? undefined : { language },
  );
  return onClose;
}

/** The definition after the term `label`: what the receipt says about one check. */
function entry(label: string): HTMLElement {
  const term = screen.getByText(label, { selector: 'dt' });
  return term.nextElementSibling as HTMLElement;
}

describe('the revocation receipt', () => {
  it('shows the count, the CRL number and time, and the OCSP answer for the newest key', async () => {
    const onClose = show(CONFIRMED);
    const dialog = await screen.findByRole('dialog', { name: 'Ranger2 was revoked' });
    expect(entry('Keys revoked')).toHaveTextContent('3 certificates revoked.');
    expect(entry('Revocation list (CRL)')).toHaveTextContent(/Number 1764000000123, signed .*2026/);
    expect(entry('Revocation list (CRL)')).toHaveTextContent(
      'It lists all 3 revoked certificates.',
    );
    expect(entry('OCSP answer')).toHaveTextContent(/Newest key: 7c1e9a.*Revoked since .*2026/);
    for (const label of ['Keys revoked', 'Revocation list (CRL)', 'OCSP answer']) {
      expect(entry(label)).not.toHaveClass('bg-red-50');
    }
    await userEvent.setup().click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(onClose).toHaveBeenCalledOnce();
  });

  it('marks in red what the checks did not confirm', async () => {
    show({
      ...CONFIRMED,
      crl: { ...CONFIRMED.crl!, lists_revoked: 2 },
      ocsp: { status: 'good', revoked_at: null, produced_at: '2026-11-24T16:00:01.000Z' },
    });
    await screen.findByRole('dialog');
    expect(entry('Revocation list (CRL)')).toHaveTextContent(
      'It lists only 2 of the 3 revoked certificates.',
    );
    expect(entry('Revocation list (CRL)')).toHaveClass('bg-red-50');
    expect(entry('OCSP answer')).toHaveTextContent('Still good');
    expect(entry('OCSP answer')).toHaveClass('bg-red-50');
  });

  it('says when a check could not be made, and when the member held no key', async () => {
    show({ certificates_revoked: 0, crl: null, newest_serial: null, ocsp: null });
    await screen.findByRole('dialog');
    expect(entry('Keys revoked')).toHaveTextContent('0 certificates revoked.');
    expect(entry('Revocation list (CRL)')).toHaveTextContent('could not be checked');
    expect(entry('Revocation list (CRL)')).toHaveClass('bg-red-50');
    expect(entry('OCSP answer')).toHaveTextContent('The member held no key.');
  });

  it('speaks Finnish', async () => {
    show(CONFIRMED, 'fi');
    await screen.findByRole('dialog', { name: 'Ranger2 on poistettu' });
    expect(entry('Mitätöidyt avaimet')).toHaveTextContent('3 varmennetta mitätöity.');
    expect(entry('OCSP-vastaus')).toHaveTextContent(/Mitätöity .* alkaen/);
  });
});
