// A Strata table's columns as an Iceberg v2 schema: field ids are column ids (a nested column's children keep
// theirs as element-id, key-id and value-id), and each type maps by one rule (docs/decisions/0045). A type
// whose values an Iceberg reader would read wrong from the Parquet DuckDB writes (an unsigned 32- or 64-bit
// integer, a 128-bit one, a time with a zone, an interval, a timestamp in seconds, milliseconds or
// nanoseconds) has no rule: the table is refused, naming the column, rather than served wrong.
import { columnType, nestedType } from '../../keys/column-types.js';
import { StrataError } from '../errors.js';
import type { ColumnInfo } from '../read/records.js';

export type IcebergPrimitive = string;

export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergType;
}

export interface IcebergStruct {
  type: 'struct';
  fields: IcebergField[];
}

export interface IcebergList {
  type: 'list';
  'element-id': number;
  'element-required': boolean;
  element: IcebergType;
}

export interface IcebergMap {
  type: 'map';
  'key-id': number;
  key: IcebergType;
  'value-id': number;
  'value-required': boolean;
  value: IcebergType;
}

export type IcebergType = IcebergPrimitive | IcebergStruct | IcebergList | IcebergMap;

export interface IcebergSchema extends IcebergStruct {
  'schema-id': number;
}

/**
 * The Iceberg type of each primitive Strata type that has one. int8 to int16 and uint8 to uint16 are read as
 * Iceberg's int: DuckDB writes them as Parquet INT32, and every such value is one. json is text in Parquet
 * (a string with a JSON annotation), so it is a string.
 */
const PRIMITIVES: Readonly<Record<string, IcebergPrimitive>> = {
  boolean: 'boolean',
  int8: 'int',
  int16: 'int',
  int32: 'int',
  uint8: 'int',
  uint16: 'int',
  int64: 'long',
  float32: 'float',
  float64: 'double',
  date: 'date',
  time: 'time',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  varchar: 'string',
  json: 'string',
  blob: 'binary',
  uuid: 'uuid',
};

/** Why a Strata type is not served, in the words a refusal gives. */
const UNSERVED: Readonly<Record<string, string>> = {
  uint32: 'DuckDB writes it as a signed 32-bit Parquet integer, which an Iceberg reader would read negative past 2^31',
  uint64: 'DuckDB writes it as a signed 64-bit Parquet integer, which an Iceberg reader would read negative past 2^63',
  int128: 'DuckDB writes it as a DOUBLE, which loses digits',
  uint128: 'DuckDB writes it as a DOUBLE, which loses digits',
  timetz: 'Iceberg has no time with a zone',
  interval: 'Iceberg has no interval',
  timestamp_s: 'Iceberg v2 timestamps are in microseconds, and DuckDB writes this one in seconds',
  timestamp_ms: 'Iceberg v2 timestamps are in microseconds, and DuckDB writes this one in milliseconds',
  timestamp_ns: 'Iceberg v2 timestamps are in microseconds, and DuckDB writes this one in nanoseconds',
};

/** The Iceberg schema of a table's columns; INVALID_ARGUMENT naming the first column that has no Iceberg type. */
export function icebergSchema(table: string, schemaId: number, columns: readonly ColumnInfo[]): IcebergSchema {
  return { type: 'struct', 'schema-id': schemaId, fields: columns.map((c) => field(table, c, c.name)) };
}

/** The greatest field id in a schema, nested ones included. */
export function lastColumnId(columns: readonly ColumnInfo[]): number {
  return columns.reduce((m, c) => Math.max(m, c.id, lastColumnId(c.children ?? [])), 0);
}

function field(table: string, c: ColumnInfo, path: string): IcebergField {
  return { id: c.id, name: c.name, required: !c.nullsAllowed, type: typeOf(table, c, path) };
}

function typeOf(table: string, c: ColumnInfo, path: string): IcebergType {
  const children = c.children ?? [];
  switch (nestedType(c.type)) {
    case 'struct':
      return { type: 'struct', fields: children.map((f) => field(table, f, `${path}.${f.name}`)) };
    case 'list': {
      const element = children[0]!;
      return { type: 'list', 'element-id': element.id, 'element-required': !element.nullsAllowed, element: typeOf(table, element, `${path}.element`) };
    }
    case 'map': {
      const [key, value] = [children[0]!, children[1]!];
      return {
        type: 'map',
        'key-id': key.id,
        key: typeOf(table, key, `${path}.key`),
        'value-id': value.id,
        'value-required': !value.nullsAllowed,
        value: typeOf(table, value, `${path}.value`),
      };
    }
    case undefined:
      return primitive(table, c.type, path);
  }
}

function primitive(table: string, stored: string, path: string): IcebergPrimitive {
  const t = columnType(stored) ?? stored;
  const mapped = PRIMITIVES[t];
  if (mapped !== undefined) return mapped;
  if (t.startsWith('decimal(')) return t;
  throw new StrataError(
    'INVALID_ARGUMENT',
    `table ${table} cannot be served as an Iceberg table: its column ${path} is ${t}, which has no Iceberg v2 type (${UNSERVED[t] ?? 'Strata has no rule for it'}); ` +
      'keep such values in a column of a type Iceberg has (BIGINT, DECIMAL(38,0), TIMESTAMP, VARCHAR) to serve the table',
  );
}
