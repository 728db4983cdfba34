/**
 * The names `server-cert` accepts (docs/deployment.md): DNS names with at least one dot, each
 * label letters, digits and inner hyphens (a leading `*.` allowed). A callsign is letters and
 * digits only, so no such name is ever a member's callsign or a reserved one, and a TAK Server
 * that maps a certificate's CN to a user can never take the certificate as a member's.
 */
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
const MAX_NAME_LENGTH = 253;

export function isServerCertName(name: string): boolean {
  if (name.length > MAX_NAME_LENGTH) return false;
  const labels = name.split('.');
  if (labels[0] === '*') labels.shift();
  return labels.length >= 2 && labels.every((label) => LABEL.test(label));
}

/** The first name `server-cert` refuses, if any. */
export function refusedServerCertName(names: readonly string[]): string | undefined {
  return names.find((name) => !isServerCertName(name));
}
