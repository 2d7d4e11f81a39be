import { type Key, readU64 } from '../../keys/key-codec.js';
import { decodeValue, ValueDecodeError } from '../../keys/value-codec.js';
import { StrataError } from '../errors.js';

/** Decodes a stored value; bytes that are not a value of ours are CORRUPT, naming the key. */
export function decodeRow<T>(key: Key, bytes: Uint8Array): T {
  try {
    return decodeValue<T>(key, bytes);
  } catch (e) {
    if (e instanceof ValueDecodeError) throw new StrataError('CORRUPT', `${e.message}; rebuild the index from the store`, { cause: e });
    throw e;
  }
}

/** The begin_snapshot of a versioned or append-only key: its last 8 bytes. */
export function beginOf(key: Key): number {
  return readU64(key, key.length - 8);
}
