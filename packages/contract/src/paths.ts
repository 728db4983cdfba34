/** URL paths of the API, the CA endpoints and the web app that more than one side builds. */
export const API_PREFIX = '/api/v1';

export const apiPaths = {
  healthcheck: `${API_PREFIX}/healthcheck`,
  checkAuthAny: `${API_PREFIX}/check-auth/mtls_or_jwt`,
  checkAuthValidUser: `${API_PREFIX}/check-auth/validuser`,
  checkAuthAdmin: `${API_PREFIX}/check-auth/validuser/admin`,
  checkAdminCode: `${API_PREFIX}/firstuser/check-code`,
  exchangeCode: `${API_PREFIX}/token/code/exchange`,
  /** POST: ends the bearer token sent (sign-out on this device). */
  signOut: `${API_PREFIX}/token/sign-out`,
  addAdmin: `${API_PREFIX}/firstuser/add-admin`,
  checkInviteCode: `${API_PREFIX}/enrollment/invitecode`,
  enroll: `${API_PREFIX}/enrollment/invitecode/enroll`,
  acceptance: `${API_PREFIX}/enrollment/have-i-been-accepted`,
  enrollmentList: `${API_PREFIX}/enrollment/list`,
  accept: `${API_PREFIX}/enrollment/accept`,
  lock: `${API_PREFIX}/enrollment/lock`,
  promote: `${API_PREFIX}/enrollment/promote`,
  demote: `${API_PREFIX}/enrollment/demote`,
  pools: `${API_PREFIX}/enrollment/pools`,
  createInvite: `${API_PREFIX}/enrollment/invitecode/create`,
  deactivateInvite: `${API_PREFIX}/enrollment/invitecode/deactivate`,
  activateInvite: `${API_PREFIX}/enrollment/invitecode/activate`,
  /** DELETE with the code as the last segment. */
  invite: (code: string) => `${API_PREFIX}/enrollment/invitecode/${encodeURIComponent(code)}`,
  peopleList: `${API_PREFIX}/people/list`,
  /** DELETE with the callsign as the last segment. */
  person: (callsign: string) => `${API_PREFIX}/people/${encodeURIComponent(callsign)}`,
  /** GET (admin) and PUT (admin) a member's TAK preset. */
  preset: (callsign: string) => `${API_PREFIX}/people/${encodeURIComponent(callsign)}/preset`,
  /** GET: the caller's own TAK preset. */
  myPreset: `${API_PREFIX}/me/preset`,
  /** GET (admin) every group, POST (admin) a new one. */
  groups: `${API_PREFIX}/groups`,
  /** DELETE (admin) a group; `?force=true` while members are in it. */
  group: (name: string) => `${API_PREFIX}/groups/${encodeURIComponent(name)}`,
  /** GET and PUT (admin) a member's groups. */
  personGroups: (callsign: string) => `${API_PREFIX}/people/${encodeURIComponent(callsign)}/groups`,
  /** GET: the caller's own groups. */
  myGroups: `${API_PREFIX}/me/groups`,
  /** GET (admin): the directory's publication state (LDAP, docs/directory.md). */
  directory: `${API_PREFIX}/admin/directory`,
  bulk: `${API_PREFIX}/enrollment/bulk`,
  bulkCheck: `${API_PREFIX}/enrollment/bulk/check`,
  batch: (batchId: string) => `${API_PREFIX}/enrollment/bulk/${encodeURIComponent(batchId)}`,
  voidBatch: (batchId: string) =>
    `${API_PREFIX}/enrollment/bulk/${encodeURIComponent(batchId)}/void`,
  keyDownload: (callsign: string) => `${API_PREFIX}/enduserpfx/${encodeURIComponent(callsign)}`,
  instructions: `${API_PREFIX}/instructions/user`,
  idmConsole: `${API_PREFIX}/admin/idm-console`,
  myKeys: `${API_PREFIX}/me/keys`,
  /** DELETE: one of the caller's own keys. */
  myKey: (serial: string) => `${API_PREFIX}/me/keys/${encodeURIComponent(serial)}`,
  personKeys: (callsign: string) => `${API_PREFIX}/people/${encodeURIComponent(callsign)}/keys`,
  /** DELETE: one key of a member (admin). */
  personKey: (callsign: string, serial: string) =>
    `${API_PREFIX}/people/${encodeURIComponent(callsign)}/keys/${encodeURIComponent(serial)}`,
  renewalCode: (callsign: string) =>
    `${API_PREFIX}/people/${encodeURIComponent(callsign)}/renewal-code`,
  expiring: `${API_PREFIX}/admin/expiring`,
  caExpiry: `${API_PREFIX}/admin/ca`,
  audit: `${API_PREFIX}/admin/audit`,
  auditCsv: `${API_PREFIX}/admin/audit.csv`,
  takReadiness: `${API_PREFIX}/admin/tak-readiness`,
  members: `${API_PREFIX}/admin/members`,
  /** GET: one member's row of the members table (admin). */
  member: (callsign: string) => `${API_PREFIX}/admin/members/${encodeURIComponent(callsign)}`,
  openapi: '/api/openapi.json',
} as const;

export const caPaths = {
  chain: '/ca/ca.pem',
  crlPem: '/ca/crl.pem',
  crlDer: '/ca/crl.der',
  ocsp: '/ca/ocsp',
  /** The issuing CA's certificate alone, DER: the caIssuers URL of every leaf (RFC 5280 §4.2.2.1). */
  issuingCaDer: '/ca/issuing-ca.der',
} as const;

/**
 * The CRL (DER) of the issuing CA a rollover made, generation `generation` ≥ 2: the CRL
 * distribution point of its keys (the first issuing CA's keys carry `caPaths.crlDer`).
 */
export function crlDerPathOf(generation: number): string {
  return `/ca/crl/${generation}.der`;
}

/** The certificate (DER) of issuing CA `generation` ≥ 2: the caIssuers URL of its keys. */
export function issuingCaDerPathOf(generation: number): string {
  return `/ca/issuing-ca/${generation}.der`;
}

/** The web app's login page with a code filled in: the link of an admin code or an invite. */
export function loginLink(publicOrigin: string, code: string): string {
  return `${publicOrigin}/login?code=${encodeURIComponent(code)}`;
}

/** The subdomain prefix of the mTLS face: `mtls.{host}`. */
export const MTLS_PREFIX = 'mtls.';

export function mtlsHost(host: string): string {
  return host.startsWith(MTLS_PREFIX) ? host : `${MTLS_PREFIX}${host}`;
}

export function publicHost(host: string): string {
  return host.startsWith(MTLS_PREFIX) ? host.slice(MTLS_PREFIX.length) : host;
}
