// Values are MessagePack behind one format-version byte, so a later format can be read beside today's.
import { Packr } from 'msgpackr';
import { type Key, keyToString } from './key-codec.js';

export const VALUE_FORMAT_V1 = 1;

// Plain maps rather than msgpackr records: records need their structure table shared between processes,
// which would couple every reader of the log to the writer's session.
const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true });

export class ValueDecodeError extends Error {
  constructor(
    readonly key: Key,
    reason: string,
  ) {
    super(`value under ${keyToString(key)} cannot be decoded: ${reason}`);
  }
}

export function encodeValue(value: unknown): Uint8Array {
  const body = packr.pack(value);
  const out = new Uint8Array(body.length + 1);
  out[0] = VALUE_FORMAT_V1;
  out.set(body, 1);
  return out;
}

export function decodeValue<T>(key: Key, bytes: Uint8Array): T {
  if (bytes.length < 2) throw new ValueDecodeError(key, `${bytes.length} bytes is too short`);
  if (bytes[0] !== VALUE_FORMAT_V1) throw new ValueDecodeError(key, `unknown value format ${bytes[0]}`);
  let value: unknown;
  try {
    value = packr.unpack(bytes.subarray(1));
  } catch (e) {
    throw new ValueDecodeError(key, (e as Error).message);
  }
  // Every stored value is a plain record; anything else (a number, msgpackr's placeholder for the reserved
  // 0xc1 byte, …) means the bytes are not ours.
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) {
    throw new ValueDecodeError(key, `expected a record, found ${value === null ? 'null' : (value as object).constructor?.name ?? typeof value}`);
  }
  return value as T;
}
