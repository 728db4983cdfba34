import { useAuth } from '../../features/auth/components/auth-provider';
import { AdminHome } from '../../features/admin/components/admin-home';
import { UserManagementPage as UserManagement } from '../../features/admin/components/user-management-page';
import { EnrollmentQrButton } from '../../features/tak/components/enrollment-qr-button';
import { TakCard } from '../../features/tak/components/tak-card';

/**
 * The admin area's pages: this module is the area's one lazy chunk, loaded behind the
 * admin guard. The route table in `../router.tsx` picks each page from it by name.
 */
export { ApprovalPage } from '../../features/admin/components/approval-page';
export { AuditPage } from '../../features/admin/components/audit-page';
export { CodeListPage } from '../../features/admin/components/code-list-page';
export { InviteQrPage } from '../../features/admin/components/invite-qr-page';
export { ManageUsersPage } from '../../features/admin/components/manage-users-page';

/** /app/admin: the admin home with the signed-in admin's callsign and the TAK card. */
export function AdminHomePage() {
  const { callsign } = useAuth();
  return <AdminHome callsign={callsign ?? ''} serviceCard={<TakCard />} />;
}

/** /app/admin/user-management, with the TAK enrollment QR in the dialog of each member. */
export function UserManagementPage() {
  return <UserManagement memberTools={(callsign) => <EnrollmentQrButton callsign={callsign} />} />;
}
