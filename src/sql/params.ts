// Values bound to a statement's parameters (`$1`, `?`, `$name`): `sql(q, { params })`. DuckDB binds them to the
// statement it runs, so a value is never text of the statement — nothing a caller passes can change what the
// statement does. Planning and parsing leave parameters unbound (DuckDB plans around them); only the run binds.
import { blobValue, type DuckDBValue, timestampTZValue } from '@duckdb/node-api';
import { StrataError } from '../errors.js';

/** A value a parameter takes: DuckDB types it as the node API does (a whole number as INTEGER or BIGINT, a Date as TIMESTAMPTZ, bytes as BLOB). */
export type SqlParam = null | boolean | number | bigint | string | Date | Uint8Array;

/** Positional (`$1`, `?`) or named (`$name`) parameters' values. */
export type SqlParams = readonly SqlParam[] | Readonly<Record<string, SqlParam>>;

/** What DuckDB binds. */
export type BoundParams = DuckDBValue[] | Record<string, DuckDBValue>;

const TYPES = 'null, a boolean, a number, a bigint, a string, a Date or a Uint8Array';

function bound(where: string, v: unknown): DuckDBValue {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string') return v;
  if (v instanceof Date) {
    const ms = v.getTime();
    if (!Number.isFinite(ms)) throw new StrataError('INVALID_ARGUMENT', `sql() params: ${where} is an invalid Date`);
    return timestampTZValue(BigInt(ms) * 1000n);
  }
  if (v instanceof Uint8Array) return blobValue(v);
  throw new StrataError(
    'INVALID_ARGUMENT',
    `sql() params: ${where} is ${v === undefined ? 'undefined' : typeof v === 'object' ? 'an object' : `a ${typeof v}`}; a parameter takes ${TYPES} — give other types as text and cast them in the statement ($1::DATE)`,
  );
}

/** The params a caller gave, checked: an array for `$1`/`?`, a plain object for `$name`; undefined when none were. */
export function boundParams(given: unknown): BoundParams | undefined {
  if (given === undefined) return undefined;
  if (Array.isArray(given)) return given.map((v, i) => bound(`$${i + 1}`, v));
  if (given !== null && typeof given === 'object' && Object.getPrototypeOf(given) === Object.prototype) {
    return Object.fromEntries(Object.entries(given).map(([k, v]) => [k, bound(`$${k}`, v)]));
  }
  throw new StrataError('INVALID_ARGUMENT', 'sql() params is an array (for $1, $2, … or ?) or a plain object (for $name)');
}

/** The value given for parameter `id` ('1' for `$1` and the first `?`, a name for `$name`), or undefined. */
export function paramValue(bound: BoundParams | undefined, id: string): DuckDBValue | undefined {
  if (bound === undefined) return undefined;
  if (Array.isArray(bound)) return /^\d+$/.test(id) ? bound[Number(id) - 1] : undefined;
  return Object.hasOwn(bound, id) ? (bound as Record<string, DuckDBValue>)[id] : undefined;
}

/**
 * The values DuckDB binds once the parameters the catalog reads (`read`: table_changes() bounds) are gone from
 * the text it runs, which keeps `kept`: DuckDB refuses a value for a parameter its text does not hold, and
 * numbers positional ones without gaps, so those the catalog reads must come after those the text keeps.
 */
export function keptParams(bound: BoundParams | undefined, read: ReadonlySet<string>, kept: ReadonlySet<string>): BoundParams | undefined {
  if (read.size === 0 || bound === undefined) return bound;
  if (!Array.isArray(bound)) return Object.fromEntries(Object.entries(bound).filter(([name]) => kept.has(name) || !read.has(name)));
  const last = Math.max(0, ...[...kept].map(Number));
  const early = [...read].filter((id) => !kept.has(id) && Number(id) <= last);
  if (early.length > 0) {
    throw new StrataError(
      'INVALID_ARGUMENT',
      `sql() params: $${early[0]} is a table_changes() bound, which the catalog reads, and the statement's own parameters go up to $${last}; number the bounds after them ($${last + 1}, …) or name them ($from, $to)`,
    );
  }
  return bound.slice(0, last);
}
