// The end index: `[EndIndex][end u64][the ended version's key]`, one entry per version that has an end
// (written by versions.ts in the batch that ends it). The version's key is appended whole (it is
// self-delimiting only as the key's remainder), so a range scan over [0, R] yields, in end order, exactly the
// versions that ended at or before R: excision costs what it removes, not what the catalog holds.
import { type Key, KeyDecodeError, type KeyRange, keyPrefix, readU64 } from './key-codec.js';
import { Space } from './spaces.js';
import { decodeValue } from './value-codec.js';
import type { Violation } from './violation.js';

export function endIndexKey(end: number, key: Key): Key {
  const prefix = keyPrefix(Space.EndIndex, [end]);
  const out = new Uint8Array(prefix.length + key.length);
  out.set(prefix);
  out.set(key, prefix.length);
  return out;
}

export function decodeEndIndexKey(k: Key): { end: number; key: Key } {
  if (k[0] !== Space.EndIndex || k.length <= 9) throw new KeyDecodeError(k, 'not an end-index key');
  return { end: readU64(k, 1), key: k.subarray(9) };
}

/** The entries of every version that ended at or before `through`, oldest end first. */
export const endedThrough = (through: number): KeyRange => ({ gte: keyPrefix(Space.EndIndex), lt: keyPrefix(Space.EndIndex, [through + 1]) });

/** What the end index records beside an ended file row (data or delete file): its object path. */
export const filePathNote = (row: { path: string }): object => ({ path: row.path });

export const decodeFilePathNote = (indexKey: Key, bytes: Uint8Array): string => decodeValue<{ path: string }>(indexKey, bytes).path;

/** An ended version as verify sees it: its key (hex), its end, and (file rows) its path. */
export interface EndedFact {
  keyHex: string;
  key: string;
  end: number;
  path: string | undefined;
}

/**
 * Every version that has an end has one end-index entry, under that end, and no entry names a version that
 * does not end there: excision finds what to remove only through this index, so a missing entry keeps bytes
 * forever and a stray one could remove a live version.
 */
export function endIndexProblems(ended: readonly EndedFact[], entries: readonly { end: number; keyHex: string; path: string | undefined; key: string }[]): Violation[] {
  const out: Violation[] = [];
  const byKey = new Map(entries.map((e) => [`${e.end}/${e.keyHex}`, e]));
  for (const v of ended) {
    const e = byKey.get(`${v.end}/${v.keyHex}`);
    byKey.delete(`${v.end}/${v.keyHex}`);
    if (e === undefined) out.push({ invariant: 'end-index-lists-every-end', key: v.key, message: `this version ends at snapshot ${v.end}, but the end index has no entry for it` });
    else if (e.path !== v.path) out.push({ invariant: 'end-index-lists-every-end', key: v.key, message: `the end index records path ${JSON.stringify(e.path)} for this file row of path ${JSON.stringify(v.path)}` });
  }
  for (const e of byKey.values()) out.push({ invariant: 'end-index-lists-every-end', key: e.key, message: `an end-index entry for a version that does not end at snapshot ${e.end}` });
  return out;
}
