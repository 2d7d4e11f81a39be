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
