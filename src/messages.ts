// Shared pieces of error messages, so every message names things the same way.

/** `"sales"."orders"`: names quoted as SQL identifiers are, joined by dots. */
export const quote = (...names: string[]): string => names.map((n) => JSON.stringify(n)).join('.');

/**
 * A tag that does not exist, and where the tags are listed, for a caller of the API and a person at the
 * command line alike. It does not list them: tag names may mean something to people who cannot read them.
 */
export const noSuchTag = (name: string): string => `tag ${JSON.stringify(name)} does not exist; catalog.tags() and strata tag list list the tags`;

/** Up to ten names, then how many more; "none" for an empty list. */
export function listed(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, 10).map((n) => JSON.stringify(n));
  return names.length > 10 ? `${shown.join(', ')} and ${names.length - 10} more` : shown.join(', ');
}

/**
 * What a file system's refusal means to a person, for the errors a disk, a mount or a permission gives
 * (undefined for others): each caller adds what to do in its own terms.
 */
export function fileSystemProblem(e: unknown): string | undefined {
  switch ((e as { code?: unknown } | null)?.code) {
    case 'EROFS':
      return 'the file system is mounted read-only';
    case 'EACCES':
    case 'EPERM':
      return 'this process may not write there (see the owner and permissions)';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    default:
      return undefined;
  }
}
