import { execFileSync } from 'node:child_process';

// Test support: reads XML with libxml2's xmllint, an independent parser, so a test sees what a
// client would (and a document that is not well-formed fails the test).

/** The string value of an XPath expression over `xml`. */
export function xpathString(xml: string, expression: string): string {
  const output = execFileSync('xmllint', ['--xpath', `string(${expression})`, '-'], {
    input: xml,
    encoding: 'utf8',
  });
  // xmllint ends its answer with a newline of its own.
  return output.endsWith('\n') ? output.slice(0, -1) : output;
}

/** The values of every attribute an XPath expression selects, in document order. */
export function xpathValues(xml: string, expression: string): string[] {
  const count = Number(xpathString(xml, `count(${expression})`));
  return Array.from({ length: count }, (_, index) =>
    xpathString(xml, `(${expression})[${index + 1}]`),
  );
}
