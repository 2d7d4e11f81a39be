// How a result's values come to JavaScript: exactly (decision 0036). Numbers, bigints, booleans, strings,
// bytes, lists and structs as the node API gives them (BIGINT as bigint, DOUBLE as a number, NaN, Infinity
// and -0 included). A value JavaScript has no exact type for comes as DuckDB's own text of it, what
// `SELECT x::VARCHAR` prints: DECIMAL ("12.50"; the node API's double would round a DECIMAL(38,…) past 15
// digits), DATE, TIME, TIME_NS, TIMETZ, every TIMESTAMP with its precision (a Date would keep milliseconds of
// "2025-01-11 10:20:05.123456789" and no infinity), INTERVAL ("1 year 2 days 03:00:00", not an object of
// parts), BIT. TIMESTAMPTZ is printed in UTC, as DuckDB prints it with TimeZone = 'UTC': the node API would
// print it in this process's zone, at its offset of today. Nested values convert field by field, so a
// DECIMAL in a list is text too. sql(), tableChanges and RETURNING all convert through here.
import type { BoundParams } from './params.js';
import type { DuckDBConnection, DuckDBDateValue, DuckDBResultReader, DuckDBTimestampTZValue, DuckDBValueConverter, JS } from '@duckdb/node-api';
import { StrataError } from '../errors.js';
import { duckdb, run } from './engine.js';

let converter: Promise<DuckDBValueConverter<JS>> | undefined;

/** The converter, made once DuckDB is loaded (a process that never runs SQL never loads it). */
function exactValues(): Promise<DuckDBValueConverter<JS>> {
  converter ??= Promise.resolve(duckdb()).then(({ DuckDBDateValue: Dates, DuckDBTimestampValue, DuckDBTypeId: T, JSDuckDBValueConverter }) => {
    /** Types whose values come as DuckDB's text of them. */
    const asText = new Set([T.DECIMAL, T.TIME, T.TIME_NS, T.TIME_TZ, T.TIMESTAMP, T.TIMESTAMP_S, T.TIMESTAMP_MS, T.TIMESTAMP_NS, T.INTERVAL, T.BIT]);
    // The node API prints a DATE's infinities as the days they are stored as.
    const dateText = (d: DuckDBDateValue) => (d.days === Dates.PosInf.days ? 'infinity' : d.days === Dates.NegInf.days ? '-infinity' : d.toString());
    const utcText = (t: DuckDBTimestampTZValue) => {
      const plain = new DuckDBTimestampValue(t.micros).toString();
      return t.isFinite ? `${plain}+00` : plain;
    };
    const exact: DuckDBValueConverter<JS> = (value, type, self) => {
      if (value === null) return null;
      // DuckDB writes no 0 before the point of a DECIMAL that has no digits before it (DECIMAL(3,3): ".500").
      if (type.typeId === T.DECIMAL && type.width === type.scale) return String(value).replace(/^(-?)0\./, '$1.');
      if (asText.has(type.typeId)) return String(value);
      if (type.typeId === T.DATE) return dateText(value as DuckDBDateValue);
      if (type.typeId === T.TIMESTAMP_TZ) return utcText(value as DuckDBTimestampTZValue);
      return JSDuckDBValueConverter(value, type, self);
    };
    return exact;
  });
  return converter;
}

/** A result's rows and its columns, named and typed as DuckDB gives them. */
export interface Rows {
  rows: Record<string, unknown>[];
  columns: { name: string; type: string }[];
}

/**
 * The columns by the names their values have in each row: a name given twice (`SELECT 1 AS a, 2 AS a`) is
 * `a`, then `a:1`, as the node API keys the row objects, so that every value can be found by its column.
 */
function columnsOf(r: { deduplicatedColumnNames(): string[]; columnTypes(): { toString(): string }[] }): Rows['columns'] {
  const types = r.columnTypes();
  return r.deduplicatedColumnNames().map((name, i) => ({ name, type: types[i]!.toString() }));
}

/** A result read whole. */
export async function rowsOf(r: DuckDBResultReader): Promise<Rows> {
  refuseProtoNames(r);
  return { rows: r.convertRowObjects(await exactValues()) as Record<string, unknown>[], columns: columnsOf(r) };
}

/** What a type holds: a STRUCT's fields (and a UNION's members) by name, a LIST's, ARRAY's or MAP's values. */
interface TypeTree {
  entryNames?: readonly string[];
  entryTypes?: readonly TypeTree[];
  memberTags?: readonly string[];
  memberTypes?: readonly TypeTree[];
  valueType?: TypeTree;
  keyType?: TypeTree;
}

const PROTO = '__proto__';

/**
 * Refuses a result with a column or a STRUCT field named `__proto__`: the node API builds each row and each
 * struct as a plain object, where that name sets the prototype instead of a property, so its value would
 * come back lost or as something else. Refused, never answered wrong.
 */
function refuseProtoNames(r: { deduplicatedColumnNames(): string[]; columnTypes(): unknown[] }): void {
  const named = (t: TypeTree): boolean =>
    (t.entryNames ?? []).includes(PROTO) ||
    [...(t.entryTypes ?? []), ...(t.memberTypes ?? []), ...(t.valueType ? [t.valueType] : []), ...(t.keyType ? [t.keyType] : [])].some(named);
  if (r.deduplicatedColumnNames().includes(PROTO) || (r.columnTypes() as TypeTree[]).some(named)) {
    throw new StrataError(
      'INVALID_ARGUMENT',
      `the result has a column or a STRUCT field named ${PROTO}, which a JavaScript object cannot hold as a name (it sets the ` +
        `object's prototype): name it otherwise (SELECT … AS other, struct_pack(other := …))`,
    );
  }
}

/**
 * `sql`'s columns, and its rows in the batches DuckDB produces them in (2,048 rows): memory bounded by a
 * batch. A result without rows is one empty batch, so that whoever reads the batches still learns its columns.
 */
export async function streamRows(c: DuckDBConnection, sql: string, params?: BoundParams): Promise<{ columns: Rows['columns']; batches: AsyncGenerator<Rows['rows']> }> {
  const result = await run(() => c.stream(sql, params));
  refuseProtoNames(result);
  const converted = result.yieldConvertedRowObjects(await exactValues());
  async function* batches(): AsyncGenerator<Rows['rows']> {
    for (let first = true; ; first = false) {
      const next = await run(() => converted.next());
      if (next.done && first) yield [];
      if (next.done) return;
      yield next.value as Rows['rows'];
    }
  }
  return { columns: columnsOf(result), batches: batches() };
}
