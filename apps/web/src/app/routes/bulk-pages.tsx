import { useQuery } from '@tanstack/react-query';
import { healthQueryOptions } from '../../features/health/api/health';
import { SlipsPrintPage } from '../../features/admin/invites/components/slips-print-page';

/**
 * Bulk onboarding (docs/api.md, "Onboarding a unit"): the bulk page, a batch's page and its print view, in one lazy
 * chunk behind the admin guard. The route table in `../router.tsx` picks each page by name.
 */
export { BulkPage } from '../../features/admin/invites/components/bulk-page';
export { BatchPage } from '../../features/admin/invites/components/batch-page';

/** The print view, with the deployment's name on every slip. */
export function SlipsPrintRoute() {
  const health = useQuery(healthQueryOptions());
  return <SlipsPrintPage deployment={health.data?.deployment ?? ''} />;
}
