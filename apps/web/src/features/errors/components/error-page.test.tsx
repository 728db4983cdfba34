import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../../test/render';
import { ErrorPage } from './error-page';

function renderError(query: string, language = 'en') {
  return renderWithProviders(
    <Routes>
      <Route path="/error" element={<ErrorPage />} />
    </Routes>,
    { path: `/error?${query}`, language },
  );
}

describe('the error page names the case and the next step', () => {
  it.each([
    ['no_key', 'No key on this device', /device where you installed your key/],
    ['revoked', 'Your key was revoked', /Ask your admin/],
    ['expired', 'Your key has expired', /renewal code/],
    ['refused', 'Your key was not accepted', /choose the certificate with your callsign/],
  ])('mtls_fail, reason %s: %s', (reason, title, next) => {
    renderError(`code=mtls_fail&reason=${reason}`);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(title);
    expect(screen.getByRole('heading', { level: 1 }).nextElementSibling).toHaveTextContent(next);
  });

  it('a revoked key gets no install advice', () => {
    renderError('code=mtls_fail&reason=revoked');
    expect(document.body.textContent).not.toMatch(/install|guide|password/i);
  });

  it('mtls_fail without a reason (an older link) keeps its text; an unknown reason too', () => {
    renderError('code=mtls_fail&reason=bogus');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      'Your key was not accepted',
    );
  });

  it('speaks Finnish', () => {
    renderError('code=mtls_fail&reason=revoked', 'fi');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Avaimesi on mitätöity');
  });

  it('an approval link opened without a key leads to the same approval on the key address', () => {
    const next = '/app/admin/user-management/approval?callsign=Ranger7&approvalcode=ABCD2345';
    renderError(`code=approval_link&next=${encodeURIComponent(next)}`);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      'Open this approval link with an admin key',
    );
    expect(screen.getByRole('link', { name: 'Open with your key' })).toHaveAttribute(
      'href',
      `https://mtls.${window.location.host}${next}`,
    );
  });

  it('never leads anywhere but the approval page', () => {
    renderError(`code=approval_link&next=${encodeURIComponent('//evil.example/x')}`);
    expect(screen.queryByRole('link', { name: 'Open with your key' })).not.toBeInTheDocument();
  });
});
