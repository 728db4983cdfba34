/**
 * The lazily loaded translations of onboarding (`src/locales/{lng}/namespaces/onboarding.json`):
 * invite options, presets, bulk slips. Pages that use them load them on first use.
 */
export const ONBOARDING_NS = 'onboarding';
