import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { keyName, keyState } from '../../../../lib/key-names';
import { personKeysQueryOptions } from '../api/keys';

/**
 * What promotion says of the member's live keys another admin's code made: they stay member keys
 * and carry no admin power (docs/api.md, "Admin power needs your own key"). Nothing when none.
 */
export function PromoteKeysNote({ callsign }: { callsign: string }) {
  const { t, i18n } = useTranslation();
  const keys = useQuery(personKeysQueryOptions(callsign));
  const others = (keys.data ?? []).filter(
    (key) =>
      keyState(key) === 'live' &&
      key.made_by !== null &&
      key.made_by.toLowerCase() !== callsign.toLowerCase(),
  );
  if (others.length === 0) return null;
  return (
    <p className="mt-2 rounded-md bg-amber-50 p-3 text-amber-950">
      {t('admin.member.promote_member_keys', {
        count: others.length,
        callsign,
        keys: others.map((key) => keyName(t, key, i18n.language)).join('; '),
      })}
    </p>
  );
}
