// Column types between the catalog (DuckLake's names, keys/column-types.ts) and DuckDB: the one table of both.
// DuckDB writes a file in the DuckDB type of each column, and reads every file back in the type the
// catalog has for the column at the snapshot asked for (a widened column reads its old files widened).
import { PRIMITIVE_TYPES } from '../../keys/column-types.js';

type Primitive = (typeof PRIMITIVE_TYPES)[number];

const TO_DUCKDB: Readonly<Record<Primitive, string>> = {
  boolean: 'BOOLEAN',
  int8: 'TINYINT',
  int16: 'SMALLINT',
  int32: 'INTEGER',
  int64: 'BIGINT',
  int128: 'HUGEINT',
  uint8: 'UTINYINT',
  uint16: 'USMALLINT',
  uint32: 'UINTEGER',
  uint64: 'UBIGINT',
  uint128: 'UHUGEINT',
  float32: 'FLOAT',
  float64: 'DOUBLE',
  date: 'DATE',
  time: 'TIME',
  timetz: 'TIME WITH TIME ZONE',
  timestamp: 'TIMESTAMP',
  timestamptz: 'TIMESTAMP WITH TIME ZONE',
  timestamp_s: 'TIMESTAMP_S',
  timestamp_ms: 'TIMESTAMP_MS',
  timestamp_ns: 'TIMESTAMP_NS',
  interval: 'INTERVAL',
  varchar: 'VARCHAR',
  blob: 'BLOB',
  uuid: 'UUID',
  json: 'JSON',
};

const FROM_DUCKDB: ReadonlyMap<string, Primitive> = new Map(
  Object.entries(TO_DUCKDB).map(([lake, duck]) => [duck, lake as Primitive] as const),
);
// DuckDB's other spellings of the same types, as DESCRIBE and typeof() give them.
const ALIASES: ReadonlyMap<string, Primitive> = new Map([
  ['TIMESTAMPTZ', 'timestamptz'],
  ['TIMETZ', 'timetz'],
  ['TIMESTAMP WITH TIME ZONE', 'timestamptz'],
  ['INT', 'int32'],
  ['REAL', 'float32'],
  ['TEXT', 'varchar'],
]);

const DECIMAL = /^decimal\((\d+),(\d+)\)$/;
const DUCK_DECIMAL = /^DECIMAL\((\d+),\s*(\d+)\)$/;

/** The DuckDB type a catalog column type reads and writes as (a canonical catalog type name). */
export function duckType(lakeType: string): string {
  const m = DECIMAL.exec(lakeType);
  if (m) return `DECIMAL(${m[1]},${m[2]})`;
  const t = TO_DUCKDB[lakeType as Primitive];
  if (t === undefined) throw new Error(`no DuckDB type for catalog type ${lakeType}`); // column-types.ts admits only mapped ones
  return t;
}

/** The catalog type of a DuckDB type, or undefined for one the catalog does not hold (nested types, ENUM, BIT…). */
export function lakeType(duck: string): string | undefined {
  const d = duck.trim().toUpperCase();
  const m = DUCK_DECIMAL.exec(d);
  if (m) return `decimal(${m[1]},${m[2]})`;
  return FROM_DUCKDB.get(d) ?? ALIASES.get(d);
}
