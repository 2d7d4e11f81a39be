// Argument checks for every public call, transaction operation and GC job, worded once for each kind of
// mistake. Each failure is INVALID_ARGUMENT naming the argument, what was given and what is accepted; nothing
// is changed by a call that fails here.
import { isKeyableName } from '../keys/key-codec.js';
import { StrataError } from './errors.js';

export const MAX_NAME_LENGTH = 255;

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

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

/** A data or delete file path: relative to the catalog's data path, no `.`/`..` or empty segments. */
export function checkFilePath(what: string, p: unknown): string {
  const ok =
    typeof p === 'string' &&
    p.length > 0 &&
    p.length <= 4096 &&
    !p.includes('\0') &&
    !p.startsWith('/') &&
    !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(p) &&
    p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
  if (!ok) {
    throw invalid(
      `${what} ${JSON.stringify(p)} is not a path relative to the data path: give e.g. "sales/orders/f1.parquet" ` +
        '(no leading "/", no scheme, no "." or ".." segments)',
    );
  }
  return p as string;
}

// DuckLake's primitive type names. Nested types (struct, list, map) need child columns and are not
// accepted yet; refusing them is better than storing a type no reader can resolve.
const PRIMITIVE_TYPES = new Set([
  'boolean',
  'int8', 'int16', 'int32', 'int64', 'int128',
  'uint8', 'uint16', 'uint32', 'uint64', 'uint128',
  'float32', 'float64',
  'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'timestamp_s', 'timestamp_ms', 'timestamp_ns',
  'interval', 'varchar', 'blob', 'uuid', 'json',
]);
const DECIMAL = /^decimal\((\d{1,2}),\s*(\d{1,2})\)$/;

export function checkColumnType(what: string, type: unknown): string {
  if (typeof type === 'string') {
    const t = type.trim().toLowerCase();
    if (PRIMITIVE_TYPES.has(t)) return t;
    const m = DECIMAL.exec(t);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= 38 && Number(m[2]) <= Number(m[1])) return `decimal(${m[1]},${m[2]})`;
  }
  throw invalid(
    `${what} ${JSON.stringify(type)} is not a supported type; use one of ${[...PRIMITIVE_TYPES].join(', ')} ` +
      'or decimal(P,S) with 1 <= P <= 38 and S <= P',
  );
}

export function checkOptionalText(what: string, s: unknown): string | null {
  if (s === undefined || s === null) return null;
  if (typeof s !== 'string') throw invalid(`${what} must be a string, got ${typeof s}`);
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

export function flag(what: string, v: unknown): boolean {
  if (v !== undefined && typeof v !== 'boolean') throw invalid(`${what} must be a boolean`);
  return v ?? false;
}
