import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { formatDateTime } from '../../../../lib/format';
import { visibleText } from '../../../../lib/visible-text';

/**
 * An audit event in the reader's words: its action named ("Key downloaded", not `key.download`)
 * and its detail as labelled fields, times as dates of the app's one format, yes and no as
 * words. An action or field the app has no words for (an older server's) shows as stored.
 */

/** Locale keys cannot hold the dots of an action's name. */
const keyOf = (name: string) => name.replaceAll('.', '_');

export function actionName(t: TFunction, action: string): string {
  return t(`admin.audit.actions.${keyOf(action)}`, { defaultValue: visibleText(action) });
}

export function useActionName(): (action: string) => string {
  const { t } = useTranslation();
  return (action) => actionName(t, action);
}

/** A field's name where the app has none: `keys_revoked`, `supersededBy` -> "keys revoked". */
function plainName(key: string): string {
  return key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
}

/** Fields that hold a moment: epoch milliseconds or ISO text. */
const TIME_FIELD = /(^|_)(at|from|to)$|At$|^(expires|created)/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Stored English words the server writes as values, and their locale keys. */
const KNOWN_VALUES: Record<string, string> = {
  'owner revoked': 'owner_revoked',
  'owner demoted': 'owner_demoted',
  'wrong approval code': 'wrong_approval_code',
  'renewal code': 'renewal_code',
  'keys-per-hour': 'keys_per_hour',
};

export interface DetailField {
  name: string;
  value: string;
}

function valueText(t: TFunction, language: string, key: string, value: unknown): string {
  if (value === null || value === undefined) return t('admin.audit.value.none');
  if (typeof value === 'boolean')
    return t(value ? 'admin.audit.value.yes' : 'admin.audit.value.no');
  if (typeof value === 'number') {
    // Epoch milliseconds (after 2001) in a field that holds a moment.
    if (TIME_FIELD.test(key) && value > 1e12) return formatDateTime(value, language);
    return new Intl.NumberFormat(language).format(value);
  }
  if (typeof value === 'string') {
    if (ISO_TIME.test(value)) return formatDateTime(value, language);
    const known = KNOWN_VALUES[value];
    return known === undefined
      ? visibleText(value)
      : t(`admin.audit.value.${known}`, { defaultValue: value });
  }
  if (Array.isArray(value)) {
    return value.map((item) => valueText(t, language, key, item)).join(', ');
  }
  return visibleText(JSON.stringify(value));
}

/** An event's detail as named fields; an object's entries in order, anything else as one field. */
export function detailFields(t: TFunction, language: string, detail: unknown): DetailField[] {
  if (detail === null || detail === undefined) return [];
  if (typeof detail !== 'object' || Array.isArray(detail)) {
    return [{ name: t('admin.audit.details'), value: valueText(t, language, '', detail) }];
  }
  return Object.entries(detail as Record<string, unknown>).map(([key, value]) => ({
    name: t(`admin.audit.field.${key}`, { defaultValue: plainName(visibleText(key)) }),
    value: valueText(t, language, key, value),
  }));
}
