import { Outlet } from 'react-router';
import { useAuth } from '../../features/auth/components/auth-provider';
import { AdminNav } from '../../features/admin/shared/components/admin-nav';
import { MemberPage } from '../../features/admin/people/components/member-page';
import { AdminHome } from '../../features/admin/home/components/admin-home';
import { EnrollmentQrButton } from '../../features/tak/components/enrollment-qr-button';
import { CaRenewalBanner } from '../../features/own-keys/components/ca-renewal-banner';
import { RenewalBanner } from '../../features/own-keys/components/renewal-banner';
import { TakCard } from '../../features/tak/components/tak-card';

/**
 * The admin area's pages: this module is the area's one lazy chunk, loaded behind the
 * admin guard. The route table in `../router.tsx` picks each page from it by name.
 */
export { ApprovalPage } from '../../features/admin/approvals/components/approval-page';
export { AuditPage } from '../../features/admin/audit/components/audit-page';
export { CodeListPage } from '../../features/admin/invites/components/code-list-page';
export { GroupsPage } from '../../features/admin/groups/components/groups-page';
export { ExpiringKeysPage } from '../../features/admin/people/components/expiring-keys-page';
export { InviteQrPage } from '../../features/admin/invites/components/invite-qr-page';
export { MembersPage } from '../../features/admin/people/components/members-page';
export { SystemPage } from '../../features/admin/system/components/system-page';

/** Every admin page: the admin area's navigation above the page. */
export function AdminLayout() {
  return (
    <>
      <AdminNav />
      <Outlet />
    </>
  );
}
export { UserAreasPage } from '../../features/admin/home/components/user-areas-page';

/** /app/admin: the admin home with the signed-in admin's callsign and the TAK card. */
export function AdminHomePage() {
  const { callsign } = useAuth();
  return (
    <AdminHome
      callsign={callsign ?? ''}
      notice={
        <>
          <CaRenewalBanner />
          <RenewalBanner />
        </>
      }
      serviceCard={<TakCard notice={<RenewalBanner scope="tak" />} />}
    />
  );
}

/**
 * /app/admin/people/{callsign}: the member's page, with the TAK enrollment station where the
 * member actions offer it; actions on the signed-in admin are off.
 */
export function AdminMemberPage() {
  const { callsign } = useAuth();
  return (
    <MemberPage self={callsign} tools={(member) => <EnrollmentQrButton callsign={member} />} />
  );
}
