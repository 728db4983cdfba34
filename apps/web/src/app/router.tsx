import { Navigate, Route, Routes } from 'react-router';
import { NotFoundPage } from '../components/not-found-page';
import { ErrorPage } from '../features/errors/components/error-page';
import { CallsignPage } from '../features/login/components/callsign-page';
import { LoginPage } from '../features/login/components/login-page';
import { paths } from '../lib/paths';
import { ROUTE_REQUIREMENTS as R } from './guards/resolve-route';
import { RouteGuard } from './guards/route-guard';
import { AppLayout } from './layouts/app-layout';
import { lazyPage } from './lazy-page';

// Everything but the login steps and the error pages loads in its own chunk, so that the login
// bundle stays small; the admin area is one chunk, each guide page another.
const EnrollmentRoute = lazyPage(() => import('./routes/enrollment-route'), 'EnrollmentRoute');
const CreateMtlsRoute = lazyPage(() => import('./routes/create-mtls-route'), 'CreateMtlsRoute');
const MemberRoute = lazyPage(() => import('./routes/member-route'), 'MemberRoute');
const KeysRoute = lazyPage(() => import('./routes/keys-route'), 'KeysRoute');

const adminPages = () => import('./routes/admin-pages');
const AdminLayout = lazyPage(adminPages, 'AdminLayout');
const MembersPage = lazyPage(adminPages, 'MembersPage');
const AdminMemberPage = lazyPage(adminPages, 'AdminMemberPage');
const SystemPage = lazyPage(adminPages, 'SystemPage');
const AdminHomePage = lazyPage(adminPages, 'AdminHomePage');
const UserAreasPage = lazyPage(adminPages, 'UserAreasPage');
const CodeListPage = lazyPage(adminPages, 'CodeListPage');
const InviteQrPage = lazyPage(adminPages, 'InviteQrPage');
const ApprovalPage = lazyPage(adminPages, 'ApprovalPage');
const ExpiringKeysPage = lazyPage(adminPages, 'ExpiringKeysPage');
const AuditPage = lazyPage(adminPages, 'AuditPage');
const GroupsPage = lazyPage(adminPages, 'GroupsPage');

const bulkPages = () => import('./routes/bulk-pages');
const BulkPage = lazyPage(bulkPages, 'BulkPage');
const BatchPage = lazyPage(bulkPages, 'BatchPage');
const SlipsPrintRoute = lazyPage(bulkPages, 'SlipsPrintRoute');

const QuickstartList = lazyPage(() => import('../guides/tak/quickstart-list'), 'QuickstartList');
const UsageOverview = lazyPage(() => import('../guides/tak/usage-overview'), 'UsageOverview');
const GuideStepPage = lazyPage(() => import('../guides/tak/guide-step-page'), 'GuideStepPage');

/** Everything below a page (`/app/admin/*`): an area's other paths. */
const below = (path: string) => `${path}/*`;

/**
 * The route table, every page of the app: each guarded group sits under the guard of
 * its row, and each area ends in its own not-found page (behind the area's guard).
 */
export function AppRoutes() {
  return (
    <Routes>
      {/* Printed slips: A4 sheets and nothing of the app's frame. */}
      <Route element={<RouteGuard requirement={R.admin} />}>
        <Route path={paths.admin.batchPrint.path} element={<SlipsPrintRoute />} />
      </Route>
      <Route element={<AppLayout />}>
        <Route path={paths.home.path} element={<RouteGuard requirement={R.home} />} />
        <Route element={<RouteGuard requirement={R.login} />}>
          <Route path={paths.login.path} element={<LoginPage />} />
        </Route>
        <Route element={<RouteGuard requirement={R.loginCallsign} />}>
          <Route path={paths.loginCallsign.path} element={<CallsignPage />} />
        </Route>
        <Route element={<RouteGuard requirement={R.loginEnrollment} />}>
          <Route path={paths.loginEnrollment.path} element={<EnrollmentRoute />} />
        </Route>
        <Route element={<RouteGuard requirement={R.loginCreateMtls} />}>
          <Route path={paths.loginCreateMtls.path} element={<CreateMtlsRoute />} />
        </Route>
        <Route element={<RouteGuard requirement={R.admin} />}>
          <Route element={<AdminLayout />}>
            <Route path={paths.admin.home.path} element={<AdminHomePage />} />
            <Route path={paths.admin.manageUsers.path} element={<UserAreasPage />} />
            {/* The old list: now the members table (docs/architecture.md, One member screen). */}
            <Route
              path={paths.admin.userManagement.path}
              element={<Navigate to={paths.admin.people.path} replace />}
            />
            <Route path={paths.admin.people.path} element={<MembersPage />} />
            <Route path={paths.admin.member.path} element={<AdminMemberPage />} />
            <Route path={paths.admin.codeList.path} element={<CodeListPage />} />
            <Route path={paths.admin.inviteCode.path} element={<InviteQrPage />} />
            <Route path={paths.admin.bulk.path} element={<BulkPage />} />
            <Route path={paths.admin.batch.path} element={<BatchPage />} />
            <Route path={paths.admin.expiringKeys.path} element={<ExpiringKeysPage />} />
            <Route path={paths.admin.audit.path} element={<AuditPage />} />
            <Route path={paths.admin.groups.path} element={<GroupsPage />} />
            <Route path={paths.admin.system.path} element={<SystemPage />} />
          </Route>
          <Route path={below(paths.admin.home.path)} element={<NotFoundPage />} />
        </Route>
        {/* Its link is sent around: opened without a key, the error page leads to it with one. */}
        <Route element={<RouteGuard requirement={R.adminApproval} />}>
          <Route element={<AdminLayout />}>
            <Route path={paths.admin.approval.path} element={<ApprovalPage />} />
          </Route>
        </Route>
        <Route element={<RouteGuard requirement={R.users} />}>
          <Route path={below(paths.users.home.path)} element={<MemberRoute />} />
        </Route>
        <Route element={<RouteGuard requirement={R.keys} />}>
          <Route path={paths.keys.path} element={<KeysRoute />} />
        </Route>
        <Route element={<RouteGuard requirement={R.tak} />}>
          <Route
            path={paths.tak.home.path}
            element={<Navigate to={paths.tak.quickstart.path} replace />}
          />
          <Route path={paths.tak.quickstart.path} element={<QuickstartList />} />
          <Route
            path={paths.tak.quickstartStep.path}
            element={<GuideStepPage section="quickstart" />}
          />
          <Route path={paths.tak.usage.path} element={<UsageOverview />} />
          <Route path={paths.tak.usageStep.path} element={<GuideStepPage section="usage" />} />
          <Route path={below(paths.tak.home.path)} element={<NotFoundPage />} />
        </Route>
        <Route path={paths.error.path} element={<ErrorPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
