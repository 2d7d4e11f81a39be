// Column types between the catalog (DuckLake's names, keys/column-types.ts) and DuckDB: the one table of both.
// DuckDB writes a file in the DuckDB type of each column, and reads every file back in the type the
// catalog has for the column at the snapshot asked for (a widened column reads its old files widened).
import { nestedType, PRIMITIVE_TYPES } from '../../keys/column-types.js';
import { ident } from './sql-text.js';

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

/** What a column's DuckDB type is made of: its catalog type, and its fields' columns should it be nested. */
export interface TypedColumn {
  type: string;
  children?: readonly (TypedColumn & { name: string })[];
}

/** The DuckDB type a column reads and writes as: its primitive type's, or a nested one made of its fields'. */
export function duckType(c: TypedColumn): string {
  const fields = c.children ?? [];
  switch (nestedType(c.type)) {
    case 'struct':
      return `STRUCT(${fields.map((f) => `${ident(f.name)} ${duckType(f)}`).join(', ')})`;
    case 'list':
      return `${duckType(fields[0]!)}[]`;
    case 'map':
      return `MAP(${duckType(fields[0]!)}, ${duckType(fields[1]!)})`;
    default:
      return primitiveDuckType(c.type);
  }
}

function primitiveDuckType(lakeType: string): string {
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

/** A type as DuckDB serialises it in a plan: its id, and for decimals, lists, maps and structs what it is made of. */
export interface PlanType {
  id: string;
  type_info: {
    alias?: string;
    width?: number;
    scale?: number;
    child_type?: PlanType;
    child_types?: { first: string; second: PlanType }[];
  } | null;
}

/** A column of a catalog type, nested ones with their fields. */
export interface LakeColumnType {
  type: string;
  children?: (LakeColumnType & { name: string })[];
}

/** The catalog type of a DuckDB type from a plan, or undefined for one the catalog does not hold (ENUM, ARRAY, BIT…). */
export function lakeTypeOfPlan(t: PlanType): LakeColumnType | undefined {
  const info = t.type_info;
  const field = (name: string, of: PlanType | undefined) => {
    const inner = of && lakeTypeOfPlan(of);
    return inner && { name, ...inner };
  };
  type Field = LakeColumnType & { name: string };
  const fields = (list: (Field | undefined)[]): Field[] | undefined => (list.every((f) => f !== undefined) ? (list as Field[]) : undefined);
  switch (t.id) {
    case 'DECIMAL':
      return { type: `decimal(${info!.width},${info!.scale})` };
    case 'VARCHAR':
      return { type: info?.alias === 'JSON' ? 'json' : 'varchar' };
    case 'LIST': {
      const children = fields([field('element', info?.child_type)]);
      return children && { type: 'list', children };
    }
    case 'MAP': {
      const kv = info?.child_type?.type_info?.child_types ?? [];
      const children = fields([field('key', kv[0]?.second), field('value', kv[1]?.second)]);
      return children && { type: 'map', children };
    }
    case 'STRUCT': {
      const children = fields((info?.child_types ?? []).map((c) => field(c.first, c.second)));
      return children && children.length > 0 ? { type: 'struct', children } : undefined;
    }
    default: {
      const lake = lakeType(t.id);
      return lake === undefined || info?.alias ? undefined : { type: lake };
    }
  }
}
