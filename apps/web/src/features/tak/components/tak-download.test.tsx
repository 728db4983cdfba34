import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiPaths, type InstructionsResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../test/render';
import { listenWithMockApi, server } from '../../../test/server';
import { zipFromDataUrl } from '../api/tak-packages';
import { TakDownloadButton } from './tak-download';

listenWithMockApi();

/** The files the dialog saves: the download name of the link and the blob behind it. */
let saved: { name: string; blob: Blob }[];
beforeEach(() => {
  saved = [];
  const blobs = new Map<string, Blob>();
  URL.createObjectURL = vi.fn((blob: Blob) => {
    const url = `blob:tak-${blobs.size}`;
    blobs.set(url, blob);
    return url;
  });
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    const blob = blobs.get(this.href);
    if (blob !== undefined) saved.push({ name: this.download, blob });
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const ZIPS = { Other: [0x50, 0x4b, 1], iOS: [0x50, 0x4b, 2], tracker: [0x50, 0x4b, 3] };

function dataUrl(bytes: number[]): string {
  return `data:application/zip;base64,${btoa(String.fromCharCode(...bytes))}`;
}

const ANSWER: InstructionsResponse = {
  files: {
    tak: [
      { title: 'Other', filename: 'Alpha1_demo_atak.zip', data: dataUrl(ZIPS.Other) },
      { title: 'iOS', filename: 'Alpha1_demo_itak.zip', data: dataUrl(ZIPS.iOS) },
      { title: 'tracker', filename: 'Alpha1_demo_tak-tracker.zip', data: dataUrl(ZIPS.tracker) },
    ],
  },
};

/** The instructions call, held open until `release()` so the loading state can be seen. */
function instructionsEndpoint(answer: () => Response) {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  server.use(
    http.get(apiPaths.instructions, async () => {
      calls += 1;
      await held;
      return answer();
    }),
  );
  return { release, calls: () => calls };
}

async function bytesOf(blob: Blob): Promise<number[]> {
  return [...new Uint8Array(await blob.arrayBuffer())];
}

describe('TAK settings download dialog', () => {
  it('defaults to Android or Windows (Other) off iOS, and to iOS on an iOS device', async () => {
    const user = userEvent.setup();
    const { unmount } = renderWithProviders(<TakDownloadButton platform="Android" />);
    await user.click(screen.getByRole('button', { name: 'Download TAK settings' }));
    expect(screen.getByRole('radio', { name: /Android or Windows/ })).toBeChecked();
    expect(screen.getByRole('radio', { name: /iOS \(iTAK\)/ })).not.toBeChecked();
    unmount();

    renderWithProviders(<TakDownloadButton platform="iOS" />);
    await user.click(screen.getByRole('button', { name: 'Download TAK settings' }));
    expect(screen.getByRole('radio', { name: /iOS \(iTAK\)/ })).toBeChecked();
  });

  it('shows the loading state, then saves the chosen zip under the server name and says so', async () => {
    const endpoint = instructionsEndpoint(() => HttpResponse.json(ANSWER));
    const user = userEvent.setup();
    renderWithProviders(<TakDownloadButton platform="Android" />);
    await user.click(screen.getByRole('button', { name: 'Download TAK settings' }));
    await user.click(screen.getByRole('radio', { name: /TAK Tracker/ }));
    await user.click(screen.getByRole('button', { name: 'Download' }));

    expect(await screen.findByText('Preparing your settings package…')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Preparing…' })).toBeDisabled();
    expect(saved).toEqual([]);

    endpoint.release();
    const dialog = await screen.findByRole('dialog', { name: 'Settings downloaded' });
    expect(dialog).toHaveTextContent('Alpha1_demo_tak-tracker.zip');
    expect(saved.map((file) => file.name)).toEqual(['Alpha1_demo_tak-tracker.zip']);
    expect(await bytesOf(saved[0]!.blob)).toEqual(ZIPS.tracker);
    // Saved as octet-stream, the type Android offers ATAK for (not application/zip).
    expect(saved[0]!.blob.type).toBe('application/octet-stream');
    expect(endpoint.calls()).toBe(1);

    await user.click(within(dialog).getByRole('button', { name: 'OK' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('shows the error dialog with the server message, and Try again returns to the choice', async () => {
    const endpoint = instructionsEndpoint(() =>
      HttpResponse.json({ detail: 'Not a valid user' }, { status: 403 }),
    );
    endpoint.release();
    const user = userEvent.setup();
    renderWithProviders(<TakDownloadButton platform="Windows" />);
    await user.click(screen.getByRole('button', { name: 'Download TAK settings' }));
    await user.click(screen.getByRole('button', { name: 'Download' }));

    const dialog = await screen.findByRole('dialog', { name: 'Download failed' });
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Not a valid user');
    expect(saved).toEqual([]);

    await user.click(within(dialog).getByRole('button', { name: 'Try again' }));
    expect(screen.getByRole('dialog', { name: 'Download TAK settings' })).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: /Android or Windows/ })).toBeChecked();
  });
});

describe('zipFromDataUrl', () => {
  it('decodes the base64 zip and refuses anything but a zip data URL', async () => {
    expect(await bytesOf(zipFromDataUrl(dataUrl([0x50, 0x4b, 0x03, 0x04])))).toEqual([
      0x50, 0x4b, 0x03, 0x04,
    ]);
    expect(() => zipFromDataUrl('data:text/html;base64,PGI+')).toThrow();
  });
});
