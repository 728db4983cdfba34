import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { apiPaths } from '@callsign/contract';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { CaRenewalBanner } from './ca-renewal-banner';

listenWithMockApi();

/** GET me/keys answers `renewCaBy`; the count of answers given so far. */
function answer(renewCaBy: string | null): () => number {
  let answered = 0;
  server.use(
    http.get(apiPaths.myKeys, () => {
      answered += 1;
      return HttpResponse.json({ keys: [], last_seen_tak_at: null, renew_ca_by: renewCaBy });
    }),
  );
  return () => answered;
}

describe('CaRenewalBanner', () => {
  it('asks a member on the old issuing CA for a new key by the date, with the way to the key page', async () => {
    answer('2027-01-15T23:59:59.000Z');
    renderWithProviders(<CaRenewalBanner />);
    const banner = await screen.findByRole('region', { name: 'Get a new key by 15 January 2027' });
    expect(banner).toHaveTextContent('The portal is moving to a new certificate authority.');
    expect(within(banner).getByRole('link', { name: 'Get a new key' })).toHaveAttribute(
      'href',
      '/app/keys',
    );
  });

  it('shows nothing outside a rollover, or for a member already on the new CA', async () => {
    const answered = answer(null);
    const { container } = renderWithProviders(<CaRenewalBanner />);
    await vi.waitFor(() => {
      expect(answered()).toBe(1);
    });
    // A turn for the answer to be rendered.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(container).toBeEmptyDOMElement();
  });
});
