// Shared pieces of error messages, so every message names things the same way.

/** `"sales"."orders"`: names quoted as SQL identifiers are, joined by dots. */
export const quote = (...names: string[]): string => names.map((n) => JSON.stringify(n)).join('.');

/** Up to ten names, then how many more; "none" for an empty list. */
export function listed(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, 10).map((n) => JSON.stringify(n));
  return names.length > 10 ? `${shown.join(', ')} and ${names.length - 10} more` : shown.join(', ');
}
