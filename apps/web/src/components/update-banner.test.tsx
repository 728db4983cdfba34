import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test/render';
import { UpdateBanner } from './update-banner';

describe('the update offer', () => {
  it('says a new version is there and reloads into it on request', async () => {
    const onReload = vi.fn();
    renderWithProviders(<UpdateBanner onReload={onReload} />);
    expect(screen.getByRole('status')).toHaveTextContent(
      'A new version of this portal is available.',
    );
    expect(onReload).not.toHaveBeenCalled();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Reload' }));
    expect(onReload).toHaveBeenCalledOnce();
  });

  it('speaks Finnish', () => {
    renderWithProviders(<UpdateBanner onReload={vi.fn()} />, { language: 'fi' });
    expect(screen.getByRole('button', { name: 'Lataa uudelleen' })).toBeInTheDocument();
  });
});
