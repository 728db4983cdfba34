import { Route, Routes } from 'react-router';
import { useAuth } from '../../auth/components/auth-provider';
import { NotFoundPage } from '../../errors/components/not-found-page';
import { AdminHome } from './admin-home';
import { ApprovalPage } from './approval-page';
import { CodeListPage } from './code-list-page';
import { InviteQrPage } from './invite-qr-page';
import { ManageUsersPage } from './manage-users-page';
import { UserManagementPage } from './user-management-page';

/** /app/admin/*: the admin area of spec §2 (a lazy chunk behind the admin guard). */
export function AdminArea() {
  const { callsign } = useAuth();
  return (
    <Routes>
      <Route index element={<AdminHome callsign={callsign ?? ''} />} />
      <Route path="manageusers" element={<ManageUsersPage />} />
      <Route path="user-management" element={<UserManagementPage />} />
      <Route path="user-management/code-list" element={<CodeListPage />} />
      <Route path="user-management/code-list/:inviteCode" element={<InviteQrPage />} />
      <Route path="user-management/approval" element={<ApprovalPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}

export default AdminArea;
