// Keys are `[space][fields…][begin_snapshot?]`: u64 fields fixed-width big-endian, names UTF-8 closed by 0x00.
// Byte order then equals the logical order of the field tuple, so a prefix scan is a range scan and
// "the newest version at or below S" is a reverse seek.
import { MAX_ID } from './ids.js';
import { type FieldKind, Space, SPACE_SPECS, spaceSpec } from './spaces.js';
import { StrataError } from '../src/errors.js';

export type Field = number | string;
export type Key = Uint8Array;

const utf8 = new TextEncoder();
// ignoreBOM: a name may open with U+FEFF, which the default drops ('\uFEFFt' read back as 't').
const utf8Decode = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const TWO_32 = 2 ** 32;

export class KeyFormatError extends Error {}

/** A name that can be a key field: non-empty, no NUL (the field terminator), valid UTF-16. */
export function isKeyableName(name: string): boolean {
  return name.length > 0 && !name.includes('\0') && name.isWellFormed();
}

function checkU64(value: Field, space: Space): number {
  // Stryker disable next-line ConditionalExpression: the typeof narrows the type (Number.isSafeInteger refuses every non-number), and MAX_ID is Number.MAX_SAFE_INTEGER, so the last test refuses nothing isSafeInteger takes
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_ID) {
    throw new KeyFormatError(`${Space[space]} key: expected a u64 field, got ${String(value)}`);
  }
  return value;
}

function nameBytes(value: Field, space: Space): Uint8Array {
  // Stryker disable next-line ConditionalExpression: the typeof narrows the type; isKeyableName refuses a number too (it has no length)
  if (typeof value !== 'string' || !isKeyableName(value)) {
    throw new KeyFormatError(`${Space[space]} key: expected a non-empty name without NUL, got ${JSON.stringify(value)}`);
  }
  return utf8.encode(value);
}

function writeU64(out: Uint8Array, at: number, value: number): void {
  const hi = Math.floor(value / TWO_32);
  const lo = value >>> 0;
  out[at] = hi >>> 24;
  out[at + 1] = (hi >>> 16) & 0xff;
  out[at + 2] = (hi >>> 8) & 0xff;
  out[at + 3] = hi & 0xff;
  out[at + 4] = lo >>> 24;
  out[at + 5] = (lo >>> 16) & 0xff;
  out[at + 6] = (lo >>> 8) & 0xff;
  out[at + 7] = lo & 0xff;
}

/**
 * The space, the given fields and (if defined) begin_snapshot, in one allocation: keys are built on every
 * read that misses a cache and for every mutation, so piecewise arrays and copies showed in profiles.
 */
function build(space: Space, kinds: readonly FieldKind[], fields: readonly Field[], begin: number | undefined): Key {
  let size = 1 + (begin === undefined ? 0 : 8);
  let names: Uint8Array[] | undefined;
  for (let i = 0; i < fields.length; i++) {
    if (kinds[i] === 'u64') {
      checkU64(fields[i]!, space);
      size += 8;
    } else {
      const bytes = nameBytes(fields[i]!, space);
      (names ??= []).push(bytes);
      size += bytes.length + 1;
    }
  }
  if (begin !== undefined) checkU64(begin, space);
  const out = new Uint8Array(size);
  out[0] = space;
  let at = 1;
  let name = 0;
  for (let i = 0; i < fields.length; i++) {
    if (kinds[i] === 'u64') {
      writeU64(out, at, fields[i] as number);
      at += 8;
    } else {
      // Stryker disable next-line UpdateOperator: no space has two name fields, so the first is the only one read
      const bytes = names![name++]!;
      out.set(bytes, at);
      at += bytes.length + 1; // the byte after the name stays 0x00: its terminator
    }
  }
  // Stryker disable next-line ConditionalExpression: a prefix has no room for begin_snapshot, and a typed array ignores writes past its end
  if (begin !== undefined) writeU64(out, at, begin);
  return out;
}

/**
 * The key prefix made of the space and the first `fields.length` identifying fields (all of them, or fewer for a
 * wider range). It never includes begin_snapshot.
 */
export function keyPrefix(space: Space, fields: readonly Field[] = []): Key {
  const spec = spaceSpec(space);
  if (fields.length > spec.fields.length) {
    throw new KeyFormatError(`${spec.name} key: ${fields.length} fields given, it has ${spec.fields.length}`);
  }
  return build(space, spec.fields, fields, undefined);
}

/** A full key: every identifying field, then begin_snapshot for the spaces whose key carries it. */
export function encodeKey(space: Space, fields: readonly Field[], begin?: number): Key {
  const spec = spaceSpec(space);
  if (fields.length !== spec.fields.length) {
    throw new KeyFormatError(`${spec.name} key: ${fields.length} fields given, it needs ${spec.fields.length}`);
  }
  if (spec.hasBegin !== (begin !== undefined)) {
    throw new KeyFormatError(`${spec.name} key: begin_snapshot is ${spec.hasBegin ? 'required' : 'not part of it'}`);
  }
  return build(space, spec.fields, fields, begin);
}

export interface DecodedKey {
  space: Space;
  fields: Field[];
  begin: number | undefined;
}

/** A big-endian u64 (within the safe-integer range) at `at`; plain byte arithmetic, no DataView per call. */
export function readU64(b: Uint8Array, at: number): number {
  const hi = b[at]! * 0x1000000 + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);
  const lo = b[at + 4]! * 0x1000000 + ((b[at + 5]! << 16) | (b[at + 6]! << 8) | b[at + 7]!);
  return hi * TWO_32 + lo;
}

/**
 * Bytes that are not a key of ours. Keys are only read back from the local index, which the store can
 * rebuild: CORRUPT, never a crash.
 */
export class KeyDecodeError extends StrataError {
  constructor(key: Key, reason: string) {
    super('CORRUPT', `index key 0x${Buffer.from(key.subarray(0, 64)).toString('hex')}${key.length > 64 ? '…' : ''} cannot be decoded: ${reason}; rebuild the index from the store (strata repair --rebuild-index)`);
  }
}

export function decodeKey(key: Key): DecodedKey {
  const space = key[0] as Space;
  const spec = SPACE_SPECS.get(space);
  if (spec === undefined) throw new KeyDecodeError(key, key.length === 0 ? 'it is empty' : `no key space 0x${space.toString(16)}`);
  let at = 1;
  const fields: Field[] = [];
  for (const kind of spec.fields) {
    if (kind === 'u64') {
      if (at + 8 > key.length) throw new KeyDecodeError(key, `${spec.name} key truncated at byte ${at}`);
      fields.push(readU64(key, at));
      at += 8;
    } else {
      const end = key.indexOf(0, at);
      if (end === -1) throw new KeyDecodeError(key, `${spec.name} key: unterminated name at byte ${at}`);
      let name: string;
      try {
        name = utf8Decode.decode(key.subarray(at, end));
      } catch {
        throw new KeyDecodeError(key, `${spec.name} key: the name at byte ${at} is not UTF-8`);
      }
      fields.push(name);
      at = end + 1;
    }
  }
  let begin: number | undefined;
  if (spec.hasBegin) {
    if (at + 8 > key.length) throw new KeyDecodeError(key, `${spec.name} key truncated at byte ${at}`);
    begin = readU64(key, at);
    at += 8;
  }
  if (at !== key.length) throw new KeyDecodeError(key, `${spec.name} key: ${key.length - at} trailing bytes`);
  return { space, fields, begin };
}

/** The smallest key greater than every key that starts with `prefix` (the exclusive end of a prefix range). */
export function prefixEnd(prefix: Key): Key {
  const out = Uint8Array.from(prefix);
  // Stryker disable next-line ArithmeticOperator: starting past the end only visits bytes that are undefined, never below 0xff
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]! < 0xff) {
      out[i]!++;
      return out.subarray(0, i + 1);
    }
  }
  throw new KeyFormatError('a prefix of only 0xff bytes has no end');
}

/** Key bytes in hex, for error messages. */
export function keyToString(key: Key): string {
  try {
    const d = decodeKey(key);
    const parts = d.fields.map((f) => JSON.stringify(f));
    if (d.begin !== undefined) parts.push(`@${d.begin}`);
    // One join makes one flat string; concatenation makes a chain of pieces, ~80 bytes more a key, which
    // verify holds for every key of the index.
    return [Space[d.space], '[', parts.join(','), ']'].join('');
  } catch {
    return `0x${Buffer.from(key).toString('hex')}`;
  }
}

export function compareKeys(a: Key, b: Key): number {
  return Buffer.compare(a, b);
}

/** A key as a string, one character per byte, equal for equal keys: what maps keyed by key use. */
export function keyId(key: Key): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

/** Whether a key starts with the byte of a key space this version knows (a damaged key may not). */
export function inKnownSpace(key: Key): boolean {
  return SPACE_SPECS.has(key[0] as Space); // an empty key's first byte is undefined, in no space
}

/** The begin_snapshot of a versioned or append-only key: its last 8 bytes. */
export function beginOf(key: Key): number {
  return readU64(key, key.length - 8);
}

/** Keys from `gte`, up to `lt` (exclusive) or `lte` (inclusive): what families hand to scans. */
export interface KeyRange {
  gte: Key;
  lt?: Key;
  lte?: Key;
}

/** Every key that starts with `prefix`. */
export const prefixRange = (prefix: Key): KeyRange => ({ gte: prefix, lt: prefixEnd(prefix) });
