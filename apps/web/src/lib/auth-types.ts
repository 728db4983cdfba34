/** Values of the auth context (spec §3) that more than one layer names. */
export type UserType = 'admin' | 'user';
export type AuthType = 'mtls' | 'jwt';
/** The login session's code type (spec §3). */
export type CodeType = 'admin' | 'user' | 'unknown';
