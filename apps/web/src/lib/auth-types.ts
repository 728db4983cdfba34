/** Values of the auth context that more than one layer names. */
export type UserType = 'admin' | 'user';
export type AuthType = 'mtls' | 'jwt';
/** The login session's code type. */
export type CodeType = 'admin' | 'user' | 'unknown';
