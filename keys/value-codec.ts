// Values are framed MessagePack (framing.ts), so a later format can be read beside today's.
//
// Values are only ever read from the local index, which the store can rebuild: a value that cannot be
// decoded is CORRUPT, naming its key, never a crash and never a guess.
import { StrataError } from '../src/errors.js';
import { FrameError, frame, isRecord, unframe } from './framing.js';
import { type Key, keyToString } from './key-codec.js';

export class ValueDecodeError extends StrataError {
  constructor(
    readonly key: Key,
    reason: string,
  ) {
    super('CORRUPT', `value under ${keyToString(key)} cannot be decoded: ${reason}; rebuild the index from the store`);
  }
}

export function encodeValue(value: unknown): Uint8Array {
  return frame(value);
}

export function decodeValue<T>(key: Key, bytes: Uint8Array): T {
  let value: unknown;
  try {
    value = unframe(bytes);
  } catch (e) {
    // Stryker disable next-line ConditionalExpression: unframe throws nothing but FrameError (it wraps msgpackr's errors)
    if (e instanceof FrameError) throw new ValueDecodeError(key, e.message);
    throw e;
  }
  // Every stored value is a plain record; anything else (a number, msgpackr's placeholder for the reserved
  // 0xc1 byte, …) means the bytes are not ours.
  if (!isRecord(value)) {
    // Stryker disable next-line OptionalChaining: msgpackr makes no object without a prototype (it renames a __proto__ key)
    throw new ValueDecodeError(key, `expected a record, found ${value === null || value === undefined ? String(value) : (value as object).constructor?.name ?? typeof value}`);
  }
  return value as T;
}
