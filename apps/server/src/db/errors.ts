const UNIQUE_VIOLATION_CODES = new Set([
  // better-sqlite3 (SqliteError.code, extended result codes)
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
  // PostgreSQL (pg DatabaseError.code, SQLSTATE unique_violation)
  '23505',
]);

/** True when a statement failed because a unique index or primary key already held the value. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) {
    return false;
  }
  return typeof error.code === 'string' && UNIQUE_VIOLATION_CODES.has(error.code);
}
