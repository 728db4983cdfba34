import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { ONBOARDING_NS } from '../../../lib/onboarding';
import { myGroupsQueryOptions } from '../api/preset';

function GroupRows() {
  const { t } = useTranslation(ONBOARDING_NS);
  const groups = useQuery(myGroupsQueryOptions());
  if (groups.data === undefined) return null;
  return (
    <>
      <dt className="font-semibold">{t('groups.mine')}</dt>
      <dd>
        {groups.data.groups.length === 0 ? (
          t('groups.mine_none')
        ) : (
          <ul>
            {groups.data.groups.map((group) => (
              <li key={group.name}>
                <span className="font-medium break-all">{group.name}</span>
                <span className="text-stone-700">
                  {' '}
                  · {t(`groups.direction.${group.direction}`)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </dd>
    </>
  );
}

/** The member's TAK Server groups, as rows of their details (nothing until they are known). */
export function MemberGroups() {
  return (
    <Suspense fallback={null}>
      <GroupRows />
    </Suspense>
  );
}
