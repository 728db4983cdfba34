import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { API_PREFIX, apiPaths, type GroupsResponse } from '@callsign/contract';
import { renderWithProviders } from '../../../../test/render';
import { listenWithMockApi, server } from '../../../../test/server';
import { GroupsPage } from './groups-page';
import { MemberGroupsEditor } from './member-groups-editor';

listenWithMockApi();

type Group = GroupsResponse['groups'][number];

/** The groups calls backed by a list that create, delete and a member's PUT really change. */
function fakeGroups(initial: Group[]) {
  let groups = initial;
  const calls: string[] = [];
  server.use(
    http.get(apiPaths.groups, () => HttpResponse.json({ groups })),
    http.post(apiPaths.groups, async ({ request }) => {
      const body = (await request.json()) as { name: string; description: string };
      calls.push(`create ${body.name} "${body.description}"`);
      groups = [...groups, { ...body, members: [] }];
      return HttpResponse.json(body);
    }),
    http.delete(`${API_PREFIX}/groups/:name`, ({ params, request }) => {
      const force = new URL(request.url).searchParams.get('force') === 'true';
      calls.push(`delete ${String(params.name)}${force ? ' force' : ''}`);
      const group = groups.find((g) => g.name === params.name);
      if (group !== undefined && group.members.length > 0 && !force) {
        return HttpResponse.json({ detail: 'has members' }, { status: 409 });
      }
      groups = groups.filter((g) => g.name !== params.name);
      return HttpResponse.json({
        success: true,
        name: params.name,
        members_removed: group?.members.length ?? 0,
      });
    }),
    http.get(`${API_PREFIX}/people/:callsign/groups`, ({ params }) =>
      HttpResponse.json({
        callsign: params.callsign,
        groups: groups.flatMap((g) =>
          g.members
            .filter((m) => m.callsign === params.callsign)
            .map((m) => ({ name: g.name, description: g.description, direction: m.direction })),
        ),
      }),
    ),
    http.put(`${API_PREFIX}/people/:callsign/groups`, async ({ params, request }) => {
      const body = (await request.json()) as { groups: { name: string; direction: string }[] };
      calls.push(`put ${String(params.callsign)} ${JSON.stringify(body.groups)}`);
      return HttpResponse.json({
        callsign: params.callsign,
        groups: body.groups.map((g) => ({ ...g, description: '' })),
      });
    }),
  );
  return calls;
}

const RED: Group = {
  name: 'Red',
  description: 'Assault',
  members: [{ callsign: 'Scout1', direction: 'out' }],
};

describe('GroupsPage', () => {
  it('lists each group with its members and how they take part', async () => {
    fakeGroups([RED, { name: 'Blue', description: '', members: [] }]);
    renderWithProviders(<GroupsPage />);
    const red = (await screen.findByRole('heading', { name: 'Red' })).closest('li');
    if (red === null) throw new Error('no item for Red');
    expect(within(red).getByText('1 member')).toBeVisible();
    expect(within(red).getByText('Scout1')).toBeVisible();
    expect(within(red).getByText(/Receives only \(out\)/)).toBeVisible();
    expect(screen.getByText('No members')).toBeVisible();
  });

  it('creates a group from its name and description', async () => {
    const calls = fakeGroups([]);
    const user = userEvent.setup();
    renderWithProviders(<GroupsPage />);
    expect(await screen.findByText('No groups yet.')).toBeVisible();
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Green');
    await user.type(screen.getByRole('textbox', { name: 'Description (optional)' }), 'Medics');
    await user.click(screen.getByRole('button', { name: 'Create group' }));
    expect(await screen.findByText('Group Green created.')).toBeVisible();
    expect(calls).toEqual(['create Green "Medics"']);
    expect(await screen.findByRole('heading', { name: 'Green' })).toBeVisible();
  });

  it.each([
    [
      'en',
      'Name',
      'Create group',
      /A group of that name exists: TAK Server’s directory sees names/,
    ],
    [
      'fi',
      'Nimi',
      'Luo käyttäjäryhmä',
      /Samanniminen ryhmä on jo olemassa: TAK Serverin hakemisto/,
    ],
  ])('words a group LDAP sees as an existing one in %s', async (language, label, button, text) => {
    fakeGroups([RED]);
    server.use(
      http.post(apiPaths.groups, () =>
        HttpResponse.json(
          { detail: 'A group "Red" exists', reason: 'group_exists' },
          { status: 409 },
        ),
      ),
    );
    const user = userEvent.setup();
    renderWithProviders(<GroupsPage />, { language });
    await user.type(await screen.findByRole('textbox', { name: label }), 'red ');
    await user.click(screen.getByRole('button', { name: button }));
    expect(await screen.findByText(text)).toBeVisible();
  });

  it('asks before deleting, says the members leave, and deletes with force', async () => {
    const calls = fakeGroups([RED]);
    const user = userEvent.setup();
    renderWithProviders(<GroupsPage />);
    await user.click(await screen.findByRole('button', { name: 'Delete Red' }));
    expect(
      screen.getByText(/Red has 1 member\. Deleting the group takes them out of it/),
    ).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Delete group' }));
    expect(await screen.findByText('Group Red deleted.')).toBeVisible();
    expect(calls).toEqual(['delete Red force']);
  });
});

describe('MemberGroupsEditor', () => {
  it("shows the member's groups and saves the chosen directions", async () => {
    const calls = fakeGroups([RED, { name: 'Blue', description: 'Recon', members: [] }]);
    const user = userEvent.setup();
    renderWithProviders(<MemberGroupsEditor callsign="Scout1" />);
    const red = await screen.findByRole('combobox', { name: 'Red' });
    expect(red).toHaveValue('out');
    expect(screen.getByRole('combobox', { name: 'Blue' })).toHaveValue('none');
    expect(screen.getByRole('button', { name: 'Save groups' })).toBeDisabled();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Blue' }), 'in');
    await user.selectOptions(red, 'none');
    await user.click(screen.getByRole('button', { name: 'Save groups' }));
    expect(await screen.findByText('Groups of Scout1 saved.')).toBeInTheDocument();
    expect(calls).toEqual(['put Scout1 [{"name":"Blue","direction":"in"}]']);
  });

  it('says where to make groups when there are none', async () => {
    fakeGroups([]);
    renderWithProviders(<MemberGroupsEditor callsign="Scout1" />, { language: 'fi' });
    expect(
      await screen.findByText('Käyttäjäryhmiä ei ole vielä: luo ne käyttäjäryhmäsivulla.'),
    ).toBeVisible();
  });
});
