import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test/render';
import { GuideStepPage } from './guide-step-page';

function renderStep(path: string) {
  return renderWithProviders(
    <Routes>
      <Route
        path="/app/services/tak/quickstart/:step"
        element={<GuideStepPage section="quickstart" />}
      />
      <Route path="/app/services/tak/usage/:step" element={<GuideStepPage section="usage" />} />
    </Routes>,
    { path },
  );
}

/** The back and forward buttons at the foot of the page. */
function stepLinks() {
  const nav = screen.getByRole('navigation', { name: 'Guide steps' });
  const [back, forward] = within(nav).getAllByRole('link');
  return { back: back!, forward: forward! };
}

describe('guide step navigation', () => {
  it('a middle step shows its place and links to both neighbours', () => {
    renderStep('/app/services/tak/quickstart/android2');
    expect(screen.getByText('Step 2 of 5')).toBeInTheDocument();
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '2');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      'Connect ATAK: scan a code, or download the settings',
    );
    const { back, forward } = stepLinks();
    expect(back).toHaveAttribute('href', '/app/services/tak/quickstart/android1');
    expect(forward).toHaveAttribute('href', '/app/services/tak/quickstart/android3');
    expect(forward).toHaveTextContent('Next');
  });

  it('the first step installs the app and its back leads to the list; step 2 connects', () => {
    const { unmount } = renderStep('/app/services/tak/quickstart/ios1');
    expect(screen.getByText('Step 1 of 5')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Install iTAK');
    expect(stepLinks().back).toHaveAttribute('href', '/app/services/tak/quickstart');
    expect(screen.queryByRole('button', { name: 'Download TAK settings' })).toBeNull();
    unmount();

    renderStep('/app/services/tak/quickstart/ios2');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Connect iTAK');
    expect(screen.getByRole('button', { name: 'Show my code' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download TAK settings' })).toBeInTheDocument();
  });

  it("the last quickstart step's forward returns to the quickstart list", () => {
    renderStep('/app/services/tak/quickstart/win4');
    expect(screen.getByText('Step 4 of 4')).toBeInTheDocument();
    const { back, forward } = stepLinks();
    expect(back).toHaveAttribute('href', '/app/services/tak/quickstart/win3');
    expect(forward).toHaveAttribute('href', '/app/services/tak/quickstart');
    expect(screen.queryByRole('button', { name: 'Download TAK settings' })).toBeNull();
  });

  it("usage android3's forward says Finish and returns to usage; the navbar leads there too", () => {
    renderStep('/app/services/tak/usage/android3');
    expect(screen.getByText('Step 3 of 3')).toBeInTheDocument();
    const { forward } = stepLinks();
    expect(forward).toHaveTextContent('Finish');
    expect(forward).toHaveAttribute('href', '/app/services/tak/usage');
    expect(screen.getByRole('link', { name: 'Back to the usage overview' })).toHaveAttribute(
      'href',
      '/app/services/tak/usage',
    );
  });

  it('usage ios1 is 1 of 1 with four collapsible cards', async () => {
    const user = userEvent.setup();
    renderStep('/app/services/tak/usage/ios1');
    expect(screen.getByText('Step 1 of 1')).toBeInTheDocument();
    const cards = screen
      .getAllByRole('button')
      .filter((button) => button.hasAttribute('aria-expanded'));
    expect(cards.map((card) => card.textContent.replace('▾', ''))).toEqual([
      'Install',
      'Set up',
      'Connect',
      'In the field',
    ]);
    // The first card starts open; a closed card opens on a click and shows its text.
    expect(cards[0]).toHaveAttribute('aria-expanded', 'true');
    expect(cards[1]).toHaveAttribute('aria-expanded', 'false');
    await user.click(cards[1]!);
    expect(cards[1]).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText(/Upload Server Package/)).toBeVisible();
    expect(stepLinks().forward).toHaveAttribute('href', '/app/services/tak/usage');
  });

  it('an unknown step is the not-found page', () => {
    renderStep('/app/services/tak/usage/android4');
    expect(screen.queryByRole('navigation', { name: 'Guide steps' })).toBeNull();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Page not found');
  });
});
