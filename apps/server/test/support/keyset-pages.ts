/**
 * Every row of a keyset-paged list (GET admin/audit, admin/members): reads the first page, then
 * each page after the last `before` it answered, until that is null.
 */
export async function allKeysetPages<Row>(
  read: (query: Record<string, string>) => Promise<{ rows: Row[]; next: string | null }>,
  query: Record<string, string>,
  limit: number,
): Promise<{ rows: Row[]; pages: number }> {
  const rows: Row[] = [];
  let before: string | null = null;
  let pages = 0;
  do {
    const answer = await read({
      ...query,
      limit: String(limit),
      ...(before === null ? {} : { before }),
    });
    rows.push(...answer.rows);
    before = answer.next;
    pages += 1;
  } while (before !== null);
  return { rows, pages };
}
