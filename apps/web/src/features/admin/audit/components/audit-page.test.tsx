import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Route, Routes, useLocation } from 'react-router';
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_ACTIONS,
  apiPaths,
  type AuditEventAnswer,
} from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { AUDIT_PAGE_SIZE, auditFilterParams } from '../api/audit';
import { formatDateTime } from '../../../../lib/format';
import { createTestI18n } from '../../../../test/i18n';
import { AuditPage } from './audit-page';

listenWithMockApi();

const START = Date.parse('2026-03-01T12:00:00.000Z');

function event(index: number, overrides: Partial<AuditEventAnswer> = {}): AuditEventAnswer {
  return {
    id: `0190a1b2-0000-7000-8000-${String(index).padStart(12, '0')}`,
    at: new Date(START - index * 60_000).toISOString(),
    actor: index % 2 === 0 ? 'Chief1' : null,
    action: index % 2 === 0 ? 'invite.create' : 'sign-in',
    target: index % 2 === 0 ? `CODE${index}` : null,
    outcome: index % 2 === 0 ? 'success' : 'failure',
    client_address: index % 2 === 0 ? '192.0.2.7' : null,
    detail: index % 2 === 0 ? { serial: `0a${index}` } : null,
    ...overrides,
  };
}

/** An audit log of `total` events served a page at a time; records each call's query. */
function fakeLog(total: number) {
  const all = Array.from({ length: total }, (_, index) => event(index));
  const calls: URLSearchParams[] = [];
  server.use(
    http.get(apiPaths.audit, ({ request }) => {
      const query = new URL(request.url).searchParams;
      calls.push(query);
      const before = query.get('before');
      const start = before === null ? 0 : all.findIndex((item) => item.id === before) + 1;
      const limit = Number(query.get('limit'));
      const events = all.slice(start, start + limit);
      const more = start + limit < all.length;
      return HttpResponse.json({ events, next_before: more ? (events.at(-1)?.id ?? null) : null });
    }),
  );
  return calls;
}

function Where() {
  const location = useLocation();
  return <output data-testid="where">{`${location.pathname}${location.search}`}</output>;
}

function renderPage(path = '/app/admin/audit', language = 'en') {
  return renderWithProviders(
    <Routes>
      <Route
        path="/app/admin/audit"
        element={
          <>
            <AuditPage />
            <Where />
          </>
        }
      />
    </Routes>,
    { path, language },
  );
}

const i18nText = (key: string) => createTestI18n('en').t(key);

/** The events on screen: each a row group of the table (its row and its details). */
async function eventRows(): Promise<HTMLElement[]> {
  const table = await screen.findByRole('table');
  return within(table)
    .getAllByRole('rowgroup')
    .filter((group) => group.tagName === 'TBODY');
}

describe('the audit log page', () => {
  it('picks the action from the actions the portal records, a whole group or one', async () => {
    const calls = fakeLog(2);
    renderPage();
    await screen.findByText('2 events shown');
    await userEvent.click(screen.getByRole('button', { name: 'Filters' }));
    const picker = screen.getByLabelText('Action');
    expect(picker.tagName).toBe('SELECT');
    const groups = within(picker).getAllByRole('group');
    expect(groups.map((group) => group.getAttribute('label'))).toEqual(
      Object.keys(AUDIT_ACTION_GROUPS).map((group) => i18nText(`admin.audit.groups.${group}`)),
    );
    const values = within(picker)
      .getAllByRole('option')
      .map((option) => option.getAttribute('value'));
    for (const action of AUDIT_ACTIONS) expect(values).toContain(action);
    expect(within(picker).getByRole('option', { name: 'Keys: all' })).toHaveValue('key');

    await userEvent.selectOptions(picker, 'Keys: all');
    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    await expect.poll(() => calls.at(-1)?.get('action')).toBe('key');
    await userEvent.selectOptions(screen.getByLabelText('Action'), 'Key revoked');
    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    await expect.poll(() => calls.at(-1)?.get('action')).toBe('key.revoke');
    expect(screen.getByTestId('where')).toHaveTextContent('/app/admin/audit?action=key.revoke');
  });

  it('shows a bidi control or invisible character stored in an event as its code point', async () => {
    // Stored before typed text refused them, or by an older TAK client: shown, never obeyed.
    server.use(
      http.get(apiPaths.audit, () =>
        HttpResponse.json({
          events: [
            event(0, {
              actor: 'Chief1',
              action: 'tak.enroll',
              target: 'Chief\u200b1',
              detail: { client_uid: 'ANDROID-\u202eexe.gnp', version: '4.10\u0085' },
            }),
          ],
          next_before: null,
        }),
      ),
    );
    renderPage();

    const item = (await eventRows())[0]!;
    expect(within(item).getByText('Chief⟨U+200B⟩1')).toBeInTheDocument();
    expect(within(item).getByText('ANDROID-⟨U+202E⟩exe.gnp')).toBeInTheDocument();
    expect(within(item).getByText('4.10⟨U+0085⟩')).toBeInTheDocument();
    expect(item.textContent).not.toMatch(/[\u0085\u200b\u202e]/);
  });

  it('lists the newest events as table rows, in words, and loads more with the cursor', async () => {
    const calls = fakeLog(AUDIT_PAGE_SIZE + 3);
    renderPage();

    await screen.findByText(`${AUDIT_PAGE_SIZE} events shown`);
    const items = await eventRows();
    expect(items).toHaveLength(AUDIT_PAGE_SIZE);
    const first = within(items[0]!);
    expect(first.getByText('Invite code made')).toHaveAttribute('title', 'invite.create');
    expect(first.getByText('success')).toBeInTheDocument();
    expect(first.getByText('Chief1')).toBeInTheDocument();
    expect(first.getByText('CODE0')).toBeInTheDocument();
    expect(first.getByText('192.0.2.7')).toBeInTheDocument();
    expect(first.getByText('serial:')).toBeInTheDocument();
    expect(first.getByText('0a0')).toBeInTheDocument();
    const second = within(items[1]!);
    expect(second.getByText('Signed in')).toBeInTheDocument();
    expect(second.getByText('failure')).toBeInTheDocument();
    expect(second.getByText('not signed in')).toBeInTheDocument();
    expect(second.getByText('command line')).toBeInTheDocument();
    const time = first.getByText((_, node) => node?.tagName === 'TIME');
    expect(time).toHaveAttribute('datetime', '2026-03-01T12:00:00.000Z');
    expect(time).toHaveTextContent(formatDateTime('2026-03-01T12:00:00.000Z', 'en'));

    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByText(`${AUDIT_PAGE_SIZE + 3} events shown`);
    expect(calls[1]?.get('before')).toBe(event(AUDIT_PAGE_SIZE - 1).id);
    expect(screen.getByText('That is all of them.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });

  it('shows details in the reader’s language: fields named, times as dates, never raw', async () => {
    const expires = Date.parse('2026-11-30T09:00:00.000Z');
    server.use(
      http.get(apiPaths.audit, () =>
        HttpResponse.json({
          events: [
            event(0, {
              action: 'renewal-code.create',
              detail: { expiresAt: expires, keys_revoked: 2, replaced: false },
            }),
            event(1, {
              action: 'invite.deactivate',
              detail: { reason: 'owner demoted', expires_at: '2026-12-01T08:00:00.000Z' },
            }),
          ],
          next_before: null,
        }),
      ),
    );
    renderPage('/app/admin/audit', 'fi');
    const [first, second] = (await eventRows()).map((row) => within(row));
    expect(first!.getByText('Uusimiskoodi luotu')).toBeInTheDocument();
    expect(first!.getByText('vanhenee:')).toBeInTheDocument();
    expect(first!.getByText(formatDateTime(expires, 'fi'))).toBeInTheDocument();
    expect(first!.getByText('avaimia mitätöity:')).toBeInTheDocument();
    expect(first!.getByText('korvasi aiemman koodin:')).toBeInTheDocument();
    expect(first!.getByText('ei')).toBeInTheDocument();
    expect(second!.getByText('sen tekijä ei ole enää ylläpitäjä')).toBeInTheDocument();
    expect(second!.getByText(formatDateTime('2026-12-01T08:00:00.000Z', 'fi'))).toBeInTheDocument();
    expect(document.body.textContent).not.toContain(String(expires));
    expect(document.body.textContent).not.toContain('expiresAt');
  });

  it('filters by who, action, target and days, in the address, the request and the CSV link', async () => {
    const calls = fakeLog(3);
    renderPage();
    await screen.findByText('3 events shown');
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      apiPaths.auditCsv,
    );

    // Folded on a narrow screen (jsdom has no media queries): the title opens it.
    await userEvent.click(screen.getByRole('button', { name: 'Filters' }));
    await userEvent.type(screen.getByLabelText('Who (callsign)'), 'chief1');
    await userEvent.selectOptions(screen.getByLabelText('Action'), 'invite');
    await userEvent.type(screen.getByLabelText('Target'), 'CODE0');
    await userEvent.type(screen.getByLabelText('From (day)'), '2026-03-01');
    await userEvent.type(screen.getByLabelText('To (day, included)'), '2026-03-02');
    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));

    const expected = {
      actor: 'chief1',
      action: 'invite',
      target: 'CODE0',
      from: new Date(2026, 2, 1).toISOString(),
      to: new Date(2026, 2, 3).toISOString(),
    };
    await expect.poll(() => calls.length).toBe(2);
    expect(Object.fromEntries([...calls[1]!.entries()])).toEqual({
      ...expected,
      limit: String(AUDIT_PAGE_SIZE),
    });
    expect(screen.getByTestId('where')).toHaveTextContent(
      '/app/admin/audit?actor=chief1&action=invite&target=CODE0&from=2026-03-01&to=2026-03-02',
    );
    expect(screen.getByRole('button', { name: 'Filters · 5 in use' })).toBeInTheDocument();
    const href = screen.getByRole('link', { name: 'Export CSV' }).getAttribute('href') ?? '';
    expect(href.startsWith(`${apiPaths.auditCsv}?`)).toBe(true);
    expect(Object.fromEntries(new URLSearchParams(href.split('?')[1]))).toEqual(expected);

    await userEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(screen.getByTestId('where')).toHaveTextContent(/^\/app\/admin\/audit$/);
    expect(screen.getByLabelText('Who (callsign)')).toHaveValue('');
  });

  it('starts from the filters in the address, and says when nothing matches', async () => {
    server.use(
      http.get(apiPaths.audit, ({ request }) => {
        const query = new URL(request.url).searchParams;
        expect(query.get('actor')).toBe('Nobody9');
        return HttpResponse.json({ events: [], next_before: null });
      }),
    );
    renderPage('/app/admin/audit?actor=Nobody9');
    await screen.findByText('No events match the filters.');
    // Filters in use: open, whatever the screen.
    expect(screen.getByLabelText('Who (callsign)')).toHaveValue('Nobody9');
    expect(screen.getByRole('button', { name: 'Filters · 1 in use' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
  });

  it('shows a failed call as an error', async () => {
    server.use(
      http.get(apiPaths.audit, () =>
        HttpResponse.json({ detail: 'Not an admin' }, { status: 403 }),
      ),
    );
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Not an admin');
  });

  it('speaks Finnish', async () => {
    fakeLog(1);
    renderPage('/app/admin/audit', 'fi');
    await screen.findByText('1 tapahtuma näkyvissä');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Tapahtumaloki');
    expect(screen.getByRole('link', { name: 'Vie CSV-tiedostoon' })).toBeInTheDocument();
    expect(screen.getByText('onnistui')).toBeInTheDocument();
  });

  it('turns days into the instants that bound them locally, the last day included', () => {
    expect(
      auditFilterParams({
        actor: ' ',
        action: '',
        target: '',
        from: '2026-12-31',
        to: '2026-12-31',
      }),
    ).toEqual({
      from: new Date(2026, 11, 31).toISOString(),
      to: new Date(2027, 0, 1).toISOString(),
    });
    expect(
      auditFilterParams({ actor: '', action: '', target: '', from: 'not-a-day', to: '' }),
    ).toEqual({});
  });
});
