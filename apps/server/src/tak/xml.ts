/**
 * XML text for the TAK settings files: every value that goes into an attribute or an element is
 * escaped here, so a deployment name or password with `&<>"'` cannot break the document.
 */

// XML 1.0 allows tab, newline, carriage return and everything from U+0020 except the surrogates
// (handled by the `u` flag) and U+FFFE/U+FFFF.
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Escapes `&<>"'` for use in element text and in attribute values alike. */
export function escapeXml(value: string): string {
  if (NOT_XML_CHAR.test(value)) {
    throw new TypeError('the value holds a character that XML 1.0 cannot carry');
  }
  return value.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

export const XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>";
