import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Route, Routes } from 'react-router';
import { API_PREFIX, apiPaths, type BatchResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { BatchPage } from './batch-page';
import { BulkPage } from './bulk-page';
import { SlipsPrintPage } from './slips-print-page';

listenWithMockApi();

const TAKEN = new Set(['taken1']);

/** The bulk calls of a server where `Taken1` is a member; records what was sent. */
function fakeBulk() {
  const sent: unknown[] = [];
  let batch: BatchResponse = {
    batch_id: 'batch-1',
    created: '2026-01-01T10:00:00.000Z',
    owner_cs: 'Boss1',
    team: 'Red',
    role: 'Medic',
    expires_at: '2026-01-04T10:00:00.000Z',
    slips: [],
  };
  server.use(
    http.post(apiPaths.bulkCheck, async ({ request }) => {
      const { callsigns } = (await request.json()) as { callsigns: string[] };
      return HttpResponse.json({
        callsigns: callsigns.map((callsign, index) => ({
          callsign,
          problem: !/^[A-Za-z0-9]{3,30}$/.test(callsign)
            ? 'invalid'
            : callsigns.findIndex((c) => c.toLowerCase() === callsign.toLowerCase()) < index
              ? 'duplicate'
              : TAKEN.has(callsign.toLowerCase())
                ? 'taken'
                : null,
        })),
      });
    }),
    http.post(apiPaths.bulk, async ({ request }) => {
      const body = (await request.json()) as { callsigns: string[] };
      sent.push(body);
      batch = {
        ...batch,
        slips: body.callsigns.map((callsign, index) => ({
          callsign,
          invite_code: `CODE${index}234`,
          link: `https://portal.example/login?code=CODE${index}234`,
          state: index === 0 ? 'key' : 'issued',
        })),
      };
      return HttpResponse.json({
        batch_id: batch.batch_id,
        expires_at: batch.expires_at,
        slips: batch.slips,
      });
    }),
    http.get(`${API_PREFIX}/enrollment/bulk/:batchId`, () => HttpResponse.json(batch)),
    http.post(`${API_PREFIX}/enrollment/bulk/:batchId/void`, () => {
      sent.push('void');
      batch = {
        ...batch,
        slips: batch.slips.map((slip) =>
          slip.state === 'issued' ? { ...slip, state: 'void' } : slip,
        ),
      };
      return HttpResponse.json({ voided: batch.slips.length - 1 });
    }),
  );
  return sent;
}

function renderBulk() {
  return renderWithProviders(
    <Routes>
      <Route path="/app/admin/user-management/bulk" element={<BulkPage />} />
      <Route path="/app/admin/user-management/bulk/:batchId" element={<BatchPage />} />
    </Routes>,
    { path: '/app/admin/user-management/bulk' },
  );
}

describe('BulkPage', () => {
  it('marks invalid, repeated and taken callsigns before anything is made', async () => {
    const sent = fakeBulk();
    const user = userEvent.setup();
    renderBulk();
    await user.type(
      screen.getByRole('textbox', { name: 'Callsigns' }),
      'Alpha1{enter}bad-name{enter}taken1{enter}ALPHA1',
    );
    const preview = await screen.findByRole('list', { name: 'Preview' });
    await expect
      .poll(() => within(preview).queryByText('(taken)') !== null, { timeout: 3000 })
      .toBe(true);
    expect(within(preview).getByText('bad-name').parentElement).toHaveTextContent(
      'bad-name(not 3–30 letters and digits)',
    );
    expect(within(preview).getByText('ALPHA1')).toHaveTextContent('ALPHA1(listed twice)');
    expect(screen.getByText('4 callsigns, 3 cannot be used.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create 1 slip' })).toBeDisabled();
    expect(sent).toEqual([]);
  });

  it('can skip what cannot be used: says which and why, then creates the rest only', async () => {
    const sent = fakeBulk();
    const user = userEvent.setup();
    renderBulk();
    await user.type(
      screen.getByRole('textbox', { name: 'Callsigns' }),
      'Alpha1{enter}bad-name{enter}taken1{enter}Bravo2{enter}ALPHA1',
    );
    const skip = await screen.findByRole(
      'checkbox',
      { name: 'Skip the 3 callsigns that cannot be used and create slips for the other 2' },
      { timeout: 3000 },
    );
    const create = screen.getByRole('button', { name: 'Create 2 slips' });
    expect(create).toBeDisabled();
    expect(
      screen.getByText('Fix the callsigns marked in the preview, or skip them.'),
    ).toBeVisible();
    await user.click(skip);
    expect(create).toBeEnabled();
    await user.click(create);
    expect(await screen.findByRole('heading', { name: 'Bulk slips' })).toBeVisible();
    expect(sent).toEqual([
      { callsigns: ['Alpha1', 'Bravo2'], team: 'Cyan', role: 'Team Member', valid_hours: 72 },
    ]);
  });

  it('the void button is not a solid red block beside Print, and it asks first', async () => {
    fakeBulk();
    const user = userEvent.setup();
    renderBulk();
    await user.type(screen.getByRole('textbox', { name: 'Callsigns' }), 'Alpha1{enter}Bravo2');
    const create = await screen.findByRole('button', { name: 'Create 2 slips' });
    await expect.poll(() => create.hasAttribute('disabled'), { timeout: 3000 }).toBe(false);
    await user.click(create);
    const voidButton = await screen.findByRole('button', { name: 'Void unused slips' });
    expect(voidButton.className).not.toMatch(/(^|\s)bg-red-/);
    expect(voidButton.className).toMatch(/\bborder-red-/);
    await user.click(voidButton);
    expect(await screen.findByRole('dialog', { name: 'Void 1 unused slip?' })).toBeVisible();
  });

  it('reads a CSV file, creates the slips with the preset, then follows the batch and voids the unused', async () => {
    const sent = fakeBulk();
    const user = userEvent.setup();
    renderBulk();
    const csv = new File(['name,callsign\n"Smith, J",Alpha1\nDoe,Bravo2\n'], 'unit.csv', {
      type: 'text/csv',
    });
    await user.upload(screen.getByLabelText('Or read them from a file'), csv);
    expect(
      await screen.findByText('Read from unit.csv. A CSV file needs a column named callsign.'),
    );
    await user.selectOptions(screen.getByRole('combobox', { name: 'Team' }), 'Red');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Role' }), 'Medic');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Slips valid for' }), '24');
    const create = await screen.findByRole('button', { name: 'Create 2 slips' });
    await expect.poll(() => create.hasAttribute('disabled'), { timeout: 3000 }).toBe(false);
    await user.click(create);

    expect(await screen.findByRole('heading', { name: 'Bulk slips' })).toBeVisible();
    expect(sent).toEqual([
      { callsigns: ['Alpha1', 'Bravo2'], team: 'Red', role: 'Medic', valid_hours: 24 },
    ]);
    const alpha = await screen.findByRole('row', { name: /Alpha1/ });
    expect(alpha).toHaveTextContent('key');
    expect(screen.getByRole('row', { name: /Bravo2/ })).toHaveTextContent('issued');
    expect(screen.getByRole('link', { name: 'Print the slips' })).toHaveAttribute(
      'href',
      '/app/admin/user-management/bulk/batch-1/print',
    );

    await user.click(screen.getByRole('button', { name: 'Void unused slips' }));
    const ask = await screen.findByRole('dialog', { name: 'Void 1 unused slip?' });
    await user.click(within(ask).getByRole('button', { name: 'Void unused slips' }));
    expect(await screen.findByText('1 slip was voided.')).toBeInTheDocument();
    await expect
      .poll(() => screen.getByRole('row', { name: /Bravo2/ }).textContent)
      .toContain('void');
    expect(sent.at(-1)).toBe('void');
  });

  it.each([
    ['en', 3, '3 unused slips on 1 sheet.'],
    ['en', 9, '9 unused slips on 2 sheets.'],
    ['en', 1, '1 unused slip on 1 sheet.'],
    ['fi', 3, '3 käyttämätöntä lappua 1 arkilla.'],
  ] as const)(
    'the print view counts in proper plurals (%s, %i slips)',
    async (language, n, text) => {
      server.use(
        http.get(`${API_PREFIX}/enrollment/bulk/:batchId`, () =>
          HttpResponse.json({
            batch_id: 'batch-1',
            created: '2026-01-01T10:00:00.000Z',
            owner_cs: 'Boss1',
            team: 'Red',
            role: 'Medic',
            expires_at: '2026-01-04T10:00:00.000Z',
            slips: Array.from({ length: n }, (_, index) => ({
              callsign: `Unit${index}`,
              invite_code: `CODE${index}234`,
              link: `https://portal.example/login?code=CODE${index}234`,
              state: 'issued',
            })),
          }),
        ),
      );
      renderWithProviders(
        <Routes>
          <Route
            path="/app/admin/user-management/bulk/:batchId/print"
            element={<SlipsPrintPage />}
          />
        </Routes>,
        { path: '/app/admin/user-management/bulk/batch-1/print', language },
      );
      expect(await screen.findByText(text)).toBeInTheDocument();
    },
  );
});
