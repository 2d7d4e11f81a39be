// Keys of the end index: `[EndIndex][end u64][the ended version's key]`. The version's key is appended whole
// (it is self-delimiting only as the key's remainder), so a range scan over [0, R] yields, in end order,
// exactly the versions that ended at or before R.
import { type Key, KeyFormatError, keyPrefix, readU64 } from './key-codec.js';
import { Tag } from './tags.js';

export function endIndexKey(end: number, key: Key): Key {
  const prefix = keyPrefix(Tag.EndIndex, [end]);
  const out = new Uint8Array(prefix.length + key.length);
  out.set(prefix);
  out.set(key, prefix.length);
  return out;
}

export function decodeEndIndexKey(k: Key): { end: number; key: Key } {
  if (k[0] !== Tag.EndIndex || k.length <= 9) throw new KeyFormatError(`not an end-index key: ${Buffer.from(k).toString('hex')}`);
  return { end: readU64(k, 1), key: k.subarray(9) };
}
