// A transaction's pending state is a set of Changes: for each entity it touched, the version visible at the
// snapshot it builds on (`base`) and what the entity should be after it (`next`, null = gone). The net
// effect is derived from the pair, so objects created and dropped inside one transaction cancel out.
import type { Row, Version } from '../../keys/versions.js';

export type { Row };

export interface Change<T> {
  readonly base: Version<T> | undefined;
  readonly next: Row<T> | null;
}

export type ChangeKind = 'none' | 'created' | 'dropped' | 'altered';

/**
 * Whether two rows say the same, `end` aside: field by field through their JSON, but only fields that are
 * not the same value already — a transaction classifies each change it holds more than once (its plan, a
 * rebase's checks), and nearly every field of a row it did not alter is.
 */
function sameRow(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let fields = 0;
  for (const k in b) {
    if (k === 'end') continue;
    fields++;
    if (a[k] !== b[k] && JSON.stringify(a[k]) !== JSON.stringify(b[k])) return false;
  }
  for (const k in a) if (k !== 'end') fields--;
  return fields === 0;
}

export function classify<T>(c: Change<T>): ChangeKind {
  if (c.base === undefined) return c.next === null ? 'none' : 'created';
  if (c.next === null) return 'dropped';
  return sameRow(c.base.row as Record<string, unknown>, c.next as Record<string, unknown>) ? 'none' : 'altered';
}

/** A change that leaves the entity as it was at the base snapshot. */
export function unchanged<T extends { end: unknown }>(base: Version<T> | undefined): Change<T> {
  if (base === undefined) return { base, next: null };
  const { end: _end, ...row } = base.row;
  return { base, next: row as Row<T> };
}
