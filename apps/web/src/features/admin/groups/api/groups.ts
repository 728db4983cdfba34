import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import {
  apiPaths,
  type CreateGroupBody,
  type CreateGroupResponse,
  type DeleteGroupResponse,
  type DirectoryStatusResponse,
  type GroupMembershipInput,
  type GroupsResponse,
  type MemberGroupsResponse,
} from '@callsign/contract';
import { apiJson } from '../../../../lib/api-client';
import { adminFailure } from '../../shared/api/failure';
import { adminKeys } from '../../shared/api/query-keys';

/** GET groups (admin): every group with its members. */
export function groupsQueryOptions() {
  return queryOptions({
    queryKey: adminKeys.groupList(),
    queryFn: async (): Promise<GroupsResponse> => {
      try {
        return await apiJson(apiPaths.groups, 'groups');
      } catch (error) {
        return adminFailure(error, 'Failed to load the groups');
      }
    },
  });
}

/** POST groups (admin). */
export function useCreateGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: CreateGroupBody): Promise<CreateGroupResponse> => {
      try {
        return await apiJson(apiPaths.groups, 'createGroup', { method: 'POST', body });
      } catch (error) {
        return adminFailure(error, 'Failed to create the group');
      }
    },
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.groups() }),
  });
}

/** DELETE groups/{name} (admin); `force` takes its members out with it. */
export function useDeleteGroup() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({
      name,
      force,
    }: {
      name: string;
      force: boolean;
    }): Promise<DeleteGroupResponse> => {
      try {
        const path = `${apiPaths.group(name)}${force ? '?force=true' : ''}`;
        return await apiJson(path, 'deleteGroup', { method: 'DELETE' });
      } catch (error) {
        return adminFailure(error, 'Failed to delete the group');
      }
    },
    onSuccess: () => client.invalidateQueries({ queryKey: adminKeys.groups() }),
  });
}

/** GET people/{callsign}/groups (admin). */
export function memberGroupsQueryOptions(callsign: string) {
  return queryOptions({
    queryKey: adminKeys.memberGroups(callsign),
    queryFn: async (): Promise<MemberGroupsResponse> => {
      try {
        return await apiJson(apiPaths.personGroups(callsign), 'memberGroups');
      } catch (error) {
        return adminFailure(error, "Failed to load the member's groups");
      }
    },
  });
}

/** PUT people/{callsign}/groups (admin): the member's groups become exactly these. */
export function useSetMemberGroups(callsign: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (groups: GroupMembershipInput[]): Promise<MemberGroupsResponse> => {
      try {
        return await apiJson(apiPaths.personGroups(callsign), 'memberGroups', {
          method: 'PUT',
          body: { groups },
        });
      } catch (error) {
        return adminFailure(error, "Failed to save the member's groups");
      }
    },
    onSuccess: (saved) => {
      client.setQueryData(adminKeys.memberGroups(callsign), saved);
      return client.invalidateQueries({ queryKey: adminKeys.groupList() });
    },
  });
}

/** GET admin/directory (admin): the LDAP directory's publication. */
export function directoryQueryOptions() {
  return queryOptions({
    queryKey: adminKeys.directory(),
    queryFn: (): Promise<DirectoryStatusResponse> => apiJson(apiPaths.directory, 'directoryStatus'),
  });
}
