// The end index: `[EndIndex][end u64][the ended version's key]`, one entry per version that has an end
// (written by versions.ts in the batch that ends it). The version's key is appended whole (it is
// self-delimiting only as the key's remainder), so a range scan over [0, R] yields, in end order, exactly the
// versions that ended at or before R: excision costs what it removes, not what the catalog holds.
import { type Key, KeyFormatError, type KeyRange, keyPrefix, readU64 } from './key-codec.js';
import { Space } from './spaces.js';
import { decodeValue } from './value-codec.js';

export function endIndexKey(end: number, key: Key): Key {
  const prefix = keyPrefix(Space.EndIndex, [end]);
  const out = new Uint8Array(prefix.length + key.length);
  out.set(prefix);
  out.set(key, prefix.length);
  return out;
}

export function decodeEndIndexKey(k: Key): { end: number; key: Key } {
  if (k[0] !== Space.EndIndex || k.length <= 9) throw new KeyFormatError(`not an end-index key: ${Buffer.from(k).toString('hex')}`);
  return { end: readU64(k, 1), key: k.subarray(9) };
}

/** The entries of every version that ended at or before `through`, oldest end first. */
export const endedThrough = (through: number): KeyRange => ({ gte: keyPrefix(Space.EndIndex), lt: keyPrefix(Space.EndIndex, [through + 1]) });

/** What the end index records beside an ended file row (data or delete file): its object path. */
export const filePathNote = (row: { path: string }): object => ({ path: row.path });

export const decodeFilePathNote = (indexKey: Key, bytes: Uint8Array): string => decodeValue<{ path: string }>(indexKey, bytes).path;
