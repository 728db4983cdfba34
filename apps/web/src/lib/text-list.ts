/** The strings of a translation that is a list (`t(key, { returnObjects: true })`); else none. */
export function textList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}
