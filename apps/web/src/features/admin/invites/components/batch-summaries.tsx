import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDateTime } from '../../../../lib/format';
import { ONBOARDING_NS } from '../../../../lib/onboarding';
import { paths } from '../../../../lib/paths';
import type { InviteCode } from '../api/invites';

interface BatchSummary {
  batchId: string;
  created: string;
  expiresAt: string | null;
  slips: number;
  used: number;
}

/** The bulk batches among the codes, newest first: how many slips, how many used. */
export function summarizeBatches(codes: readonly InviteCode[]): BatchSummary[] {
  const batches = new Map<string, BatchSummary>();
  for (const code of codes) {
    if (code.batchId === null) continue;
    const batch = batches.get(code.batchId) ?? {
      batchId: code.batchId,
      created: code.created,
      expiresAt: code.expiresAt,
      slips: 0,
      used: 0,
    };
    batch.slips += 1;
    if (code.uses > 0) batch.used += 1;
    batches.set(code.batchId, batch);
  }
  return [...batches.values()].sort((a, b) => b.created.localeCompare(a.created));
}

/** The bulk batches of the code list, each a link to its batch page. */
export function BatchSummaries({ codes }: { codes: readonly InviteCode[] }) {
  const { t, i18n } = useTranslation(ONBOARDING_NS);
  const batches = summarizeBatches(codes);
  if (batches.length === 0) return null;
  return (
    <section aria-labelledby="batches-title" className="flex flex-col gap-2">
      <h2 id="batches-title" className="text-xl font-bold">
        {t('codes.batches')}
      </h2>
      <ul className="divide-y divide-stone-200 rounded-lg border border-stone-200 bg-white shadow-sm">
        {batches.map((batch) => (
          <li key={batch.batchId}>
            <Link
              to={paths.admin.batch.href(batch.batchId)}
              className="flex min-h-11 flex-col px-3 py-2 hover:underline focus-visible:outline-3 focus-visible:outline-amber-500"
            >
              <span className="font-semibold">
                {t('codes.batch', { time: formatDateTime(batch.created, i18n.language) })}
              </span>
              <span className="text-sm text-stone-700">
                {t('codes.batch_slips', { count: batch.slips, used: batch.used })}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
