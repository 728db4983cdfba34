/** PEM text for DER bytes: 64-character lines, newline-terminated. */
export function encodePem(label: string, der: ArrayBuffer | Uint8Array): string {
  const base64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString(
    'base64',
  );
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The DER bytes of every PEM block with the given label, in order. */
export function decodePemBlocks(text: string, label: string): Buffer[] {
  const pattern = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`, 'g');
  return [...text.matchAll(pattern)].map((match) =>
    Buffer.from((match[1] ?? '').replace(/\s+/g, ''), 'base64'),
  );
}
