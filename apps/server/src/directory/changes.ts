/**
 * Told after a commit that changed what the directory holds (docs/directory.md: members, their
 * roles and groups), so that the directory is brought to the database's truth at once. The
 * embedded default has no directory: `NO_DIRECTORY` ignores it.
 */
export interface DirectoryChanges {
  changed(): void;
}

export const NO_DIRECTORY: DirectoryChanges = { changed: () => undefined };

/** Runs `change` (one transaction) and tells the directory once it has committed. */
export async function thenPublish<T>(directory: DirectoryChanges, change: Promise<T>): Promise<T> {
  const result = await change;
  directory.changed();
  return result;
}
