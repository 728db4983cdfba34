import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { Route, Routes, useLocation } from 'react-router';
import { apiPaths } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { server } from '../../../../test/server';
import { listenWithMockApi } from '../../../../test/server';
import { ApprovalPage } from './approval-page';

listenWithMockApi();

/** A promise the test resolves, so that a pending state can be seen before the answer. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    opened,
    open: () => {
      open();
    },
  };
}

interface Api {
  listCalls: number;
  accepted: unknown[];
  locked: unknown[];
}

/** enrollment/list with `waiting` pending (and one decided); accept and lock as given. */
function fakeApi(
  waiting: string[],
  options: {
    accept?: (body: unknown) => Promise<Response> | Response;
    lock?: (body: unknown) => Promise<Response> | Response;
  } = {},
): Api {
  const api: Api = { listCalls: 0, accepted: [], locked: [] };
  server.use(
    http.get(apiPaths.enrollmentList, () => {
      api.listCalls += 1;
      return HttpResponse.json({
        callsign_list: [
          ...waiting.map((callsign) => ({ callsign, approvecode: '', state: 0 })),
          { callsign: 'Decided1', approvecode: '', state: 1 },
        ],
      });
    }),
    http.post(apiPaths.accept, async ({ request }) => {
      const body = await request.json();
      api.accepted.push(body);
      return options.accept?.(body) ?? HttpResponse.json({ success: true, detail: 'Accepted' });
    }),
    http.post(apiPaths.lock, async ({ request }) => {
      const body = await request.json();
      api.locked.push(body);
      return options.lock?.(body) ?? HttpResponse.json({ success: true });
    }),
  );
  return api;
}

function Where() {
  const location = useLocation();
  return <p data-testid="where">{location.pathname + location.search}</p>;
}

function renderPage(path = '/app/admin/user-management/approval') {
  return renderWithProviders(
    <>
      <Routes>
        <Route path="/app/admin/user-management/approval" element={<ApprovalPage />} />
      </Routes>
      <Where />
    </>,
    { path },
  );
}

describe('ApprovalPage and its dialog', () => {
  it('lists only the waiting users; an empty list says nobody is waiting', async () => {
    fakeApi(['Ranger1', 'Ranger2']);
    const first = renderPage();
    expect(await screen.findByRole('button', { name: /Ranger1/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Ranger2/ })).toBeInTheDocument();
    expect(screen.queryByText('Decided1')).not.toBeInTheDocument();
    expect(screen.getByText('2 users waiting')).toBeInTheDocument();
    first.unmount();

    server.resetHandlers();
    fakeApi([]);
    renderPage();
    expect(await screen.findByText('No users are waiting for approval.')).toBeInTheDocument();
  });

  it('shows the list error as "Error: {message}"', async () => {
    server.use(
      http.get(apiPaths.enrollmentList, () =>
        HttpResponse.json({ detail: 'Not an admin' }, { status: 403 }),
      ),
    );
    renderPage();
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Not an admin');
  });

  it('initial → approving → approved with the typed code; OK closes, the list is refetched', async () => {
    const answer = gate();
    const api = fakeApi(['Ranger1'], {
      accept: async () => {
        await answer.opened;
        return HttpResponse.json({ success: true, detail: 'Accepted' });
      },
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: /Ranger1/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Approval of Ranger1' });
    await user.type(within(dialog).getByLabelText('Approval code'), 'ABCD2345');
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));

    expect(await within(dialog).findByRole('button', { name: 'Approving...' })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Reject' })).toBeDisabled();
    const callsBefore = api.listCalls;
    answer.open();

    expect(await within(dialog).findByText('User approved.')).toBeInTheDocument();
    expect(api.accepted).toEqual([{ callsign: 'Ranger1', approvecode: 'ABCD2345' }]);
    await vi.waitFor(() => {
      expect(api.listCalls).toBeGreaterThan(callsBefore);
    });
    await user.click(within(dialog).getByRole('button', { name: 'OK' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('a failed approval goes back to initial with "Approval error: {message}"', async () => {
    fakeApi(['Ranger1'], {
      accept: () => HttpResponse.json({ detail: 'Wrong approval code' }, { status: 403 }),
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: /Ranger1/ }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Approval code'), 'WRONG999');
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));

    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Approval error: Wrong approval code',
    );
    expect(within(dialog).getByRole('button', { name: 'Approve' })).toBeEnabled();
    expect(within(dialog).getByLabelText('Approval code')).toHaveValue('WRONG999');
    expect(within(dialog).queryByText('User approved.')).not.toBeInTheDocument();
  });

  it('a refused approval past the failure budget says how long to wait', async () => {
    fakeApi(['Ranger1'], {
      accept: () =>
        HttpResponse.json(
          { detail: 'Too many attempts; try again later' },
          { status: 429, headers: { 'Retry-After': '540' } },
        ),
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: /Ranger1/ }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Approval code'), 'ABCD2345');
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Approval error: Too many wrong attempts from this network. Try again in 9 minutes.',
    );
  });

  it('rejects only after the confirmation: initial → rejecting → rejected, by a lock call', async () => {
    const answer = gate();
    const api = fakeApi(['Ranger2'], {
      lock: async () => {
        await answer.opened;
        return HttpResponse.json({ success: true });
      },
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: /Ranger2/ }));
    await user.click(await screen.findByRole('button', { name: 'Reject' }));
    const confirm = await screen.findByRole('dialog', { name: 'Reject Ranger2?' });
    expect(within(confirm).getByRole('button', { name: 'Go back' })).toHaveFocus();
    expect(api.locked).toEqual([]);

    // Go back returns to the initial dialog without a call.
    await user.click(within(confirm).getByRole('button', { name: 'Go back' }));
    expect(await screen.findByRole('dialog', { name: 'Approval of Ranger2' })).toBeInTheDocument();
    expect(api.locked).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Reject' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Reject Ranger2?' })).getByRole('button', {
        name: 'Reject',
      }),
    );
    expect(await screen.findByRole('button', { name: 'Rejecting...' })).toBeDisabled();
    answer.open();
    expect(await screen.findByText('The user was rejected.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'OK' })).toHaveFocus();
    expect(api.locked).toEqual([{ callsign: 'Ranger2', lock_reason: 'Locked by an admin' }]);
    expect(api.accepted).toEqual([]);
  });

  it('a failed rejection goes back to initial with the error', async () => {
    fakeApi(['Ranger2'], {
      lock: () => HttpResponse.json({ detail: 'The enrollment is not pending' }, { status: 409 }),
    });
    const user = userEvent.setup();
    renderPage();
    await user.click(await screen.findByRole('button', { name: /Ranger2/ }));
    await user.click(await screen.findByRole('button', { name: 'Reject' }));
    const confirm = await screen.findByRole('dialog', { name: 'Reject Ranger2?' });
    await user.click(within(confirm).getByRole('button', { name: 'Reject' }));

    const dialog = await screen.findByRole('dialog', { name: 'Approval of Ranger2' });
    expect(within(dialog).getByRole('alert')).toHaveTextContent(
      'Rejection failed: The enrollment is not pending',
    );
  });

  it('the enrollee’s link (?callsign=&approvalcode=) opens the dialog prefilled; closing drops the query', async () => {
    const api = fakeApi(['Ranger3']);
    const user = userEvent.setup();
    renderPage('/app/admin/user-management/approval?callsign=Ranger3&approvalcode=QWER2345');
    const dialog = await screen.findByRole('dialog', { name: 'Approval of Ranger3' });
    expect(within(dialog).getByLabelText('Approval code')).toHaveValue('QWER2345');
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await within(dialog).findByText('User approved.')).toBeInTheDocument();
    expect(api.accepted).toEqual([{ callsign: 'Ranger3', approvecode: 'QWER2345' }]);
    await user.click(within(dialog).getByRole('button', { name: 'OK' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByTestId('where')).toHaveTextContent(
      /^\/app\/admin\/user-management\/approval$/,
    );
  });
});
