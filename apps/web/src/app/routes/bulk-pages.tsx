/**
 * Bulk onboarding (docs/api.md, "Onboarding a unit"): the bulk page, a batch's page and its print view, in one lazy
 * chunk behind the admin guard. The route table in `../router.tsx` picks each page by name.
 */
export { BulkPage } from '../../features/admin/invites/components/bulk-page';
export { BatchPage } from '../../features/admin/invites/components/batch-page';
/** The print view, with the deployment's name (its branding) on every slip. */
export { SlipsPrintPage as SlipsPrintRoute } from '../../features/admin/invites/components/slips-print-page';
