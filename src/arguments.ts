// Argument checks for every public call, transaction operation and GC job, worded once for each kind of
// mistake. Each failure is INVALID_ARGUMENT naming the argument, what was given and what is accepted; nothing
// is changed by a call that fails here.
import { columnType, PRIMITIVE_TYPES } from '../keys/column-types.js';
import { isKeyableName } from '../keys/key-codec.js';
import { StrataError } from './errors.js';

export const MAX_NAME_LENGTH = 255;

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

/** The last ms a time may be (the end of year 9999): past it, dates cannot be written down. */
export const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function checkName(what: string, name: unknown): string {
  if (typeof name !== 'string' || !isKeyableName(name)) {
    throw invalid(`${what} must be a non-empty string without NUL characters, got ${JSON.stringify(name)}`);
  }
  if (name.length > MAX_NAME_LENGTH) {
    throw invalid(`${what} is ${name.length} characters long; the limit is ${MAX_NAME_LENGTH}`);
  }
  return name;
}

export function checkCount(what: string, n: unknown, min = 0): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) {
    throw invalid(`${what} must be an integer >= ${min}, got ${JSON.stringify(n)}`);
  }
  return n;
}

export function checkOptionalCount(what: string, n: unknown): number | null {
  return n === undefined || n === null ? null : checkCount(what, n);
}

/** A CRC-32 as zlib.crc32 returns it (an unsigned 32-bit integer), or none. */
export function checkOptionalCrc32(what: string, n: unknown): number | null {
  if (n === undefined || n === null) return null;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw invalid(`${what} must be a CRC-32 of the file's bytes, an integer from 0 to 4294967295 (zlib.crc32), got ${JSON.stringify(n)}`);
  }
  return n;
}

/** The longest segment of a path, in UTF-8 bytes, that file systems hold (NAME_MAX). */
const MAX_SEGMENT_BYTES = 255;
const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A data or delete file path: relative to the catalog's data path, and one the store can address and so
 * delete when reclamation gets to it — refused here, not discovered by GC. `maxBytes` is what the store
 * allows under the data path.
 */
export function checkFilePath(what: string, p: unknown, maxBytes: number): string {
  // One split serves every check: a commit of many files runs this per file.
  const segments = typeof p === 'string' && p.length > 0 && !p.startsWith('/') && !SCHEME.test(p) ? p.split('/') : undefined;
  if (segments === undefined || segments.some((seg) => seg === '' || seg === '.' || seg === '..')) {
    throw invalid(
      `${what} ${shown(p)} is not a path relative to the data path: give e.g. "sales/orders/f1.parquet" ` +
        '(no leading "/", no scheme, no "." or ".." segments)',
    );
  }
  const path = p as string;
  const problem = !path.isWellFormed()
    ? 'is not valid unicode (it holds a lone surrogate)'
    : CONTROL.test(path)
      ? 'holds a control character'
      : segments.some((seg) => seg.startsWith('.'))
        ? 'has a segment that starts with "." (the store keeps its temporary files under such names and lists none)'
        : undefined;
  if (problem !== undefined) throw invalid(`${what} ${shown(path)} ${problem}; give a path the store can list and delete`);
  // UTF-8 takes at most 3 bytes per UTF-16 unit, so only strings that long need their bytes counted.
  const long = segments.find((seg) => seg.length * 3 > MAX_SEGMENT_BYTES && Buffer.byteLength(seg) > MAX_SEGMENT_BYTES);
  if (long !== undefined) {
    throw invalid(`${what} ${shown(path)} has a segment of ${Buffer.byteLength(long)} bytes; file systems hold at most ${MAX_SEGMENT_BYTES} bytes a segment`);
  }
  const bytes = path.length * 3 > maxBytes ? Buffer.byteLength(path) : 0;
  if (bytes > maxBytes) {
    throw invalid(`${what} ${shown(path)} is ${bytes} bytes; this store addresses at most ${maxBytes} bytes under the data path`);
  }
  return path;
}

export function checkColumnType(what: string, type: unknown): string {
  const t = typeof type === 'string' ? columnType(type) : undefined;
  if (t !== undefined) return t;
  throw invalid(
    `${what} ${JSON.stringify(type)} is not a supported type; use one of ${PRIMITIVE_TYPES.join(', ')} ` +
      'or decimal(P,S) with 1 <= P <= 38 and S <= P (a new column may also be a struct, list or map, with children)',
  );
}

export function checkOptionalText(what: string, s: unknown): string | null {
  if (s === undefined || s === null) return null;
  if (typeof s !== 'string') throw invalid(`${what} must be a string, got ${typeof s}`);
  // Stored as UTF-8, a lone surrogate would come back as U+FFFD: another text than the one given.
  if (!s.isWellFormed()) throw invalid(`${what} is not valid unicode (it holds a lone surrogate); it would not read back as given`);
  return s;
}

/** A duration in ms, at least 0; `fallback` when not given. */
export function durationMs(what: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw invalid(`${what} must be a whole number of ms >= 0, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** A count of at least 1; `fallback` when not given. */
export function positiveCount(what: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
    throw invalid(`${what} must be a positive integer, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function flag(what: string, v: unknown, absent = false): boolean {
  if (v !== undefined && typeof v !== 'boolean') throw invalid(`${what} must be a boolean`);
  return v ?? absent;
}

/** The closest of `known` to `key`, if one is close enough to be what was meant (a typo, another case). */
function closest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const exact = known.find((k) => k.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(key.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** Edits (insert, delete, substitute, swap two neighbours) between `a` and `b`: a swap is the commonest typo. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** A value as a message quotes it: short, and never a whole object. */
export function shown(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'function') return 'a function';
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
}

/**
 * An options object as `call` takes it: undefined for none, else a plain object whose every key is one of
 * `known`. An unknown key is refused — naming it, what exists, and the key it most likely meant — because a
 * typo must not turn `{ dryrun: true }` into a real run.
 */
export function options<T extends object>(call: string, value: T | undefined | null, known: readonly (keyof T & string)[]): T {
  if (value === undefined) return {} as T;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`${call} takes an options object with ${known.join(', ')}; got ${shown(value)}`);
  }
  for (const key of Object.keys(value)) {
    if ((known as readonly string[]).includes(key)) continue;
    const meant = closest(key, known);
    throw invalid(
      `${call} has no option ${JSON.stringify(key)}${meant === undefined ? '' : ` (did you mean ${JSON.stringify(meant)}?)`}; its options are ${known.join(', ')}`,
    );
  }
  return value;
}

/** A required argument: missing (undefined) or not an object is refused, never defaulted. */
export function required(call: string, what: string, value: unknown): void {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`${call} needs ${what}; got ${shown(value)}`);
  }
}
