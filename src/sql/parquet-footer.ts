// A Parquet file's top-level columns as its footer declares them, read here: the first statement of a process to
// read a file looks at its footer (decision 0048), and asking DuckDB for it was a query of its own, a round trip
// to its threads that was most of a small table's first read (decision 0054). What matters is what DuckDB will
// make of the file — a field id it would not see must not be seen here — so the footer is read only where its
// bytes admit one reading, DuckDB's too (thrift-compact.ts). A footer this does not read is not judged here:
// the caller asks DuckDB, whose error names what is wrong with the file.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { readCompact, type Shape, type StructValue, type Value } from './thrift-compact.js';

/** A top-level column as a file's footer declares it: its name, field id and Parquet type, nested or not. */
export interface FooterColumn {
  name: string;
  fieldId: number | null;
  /** Its physical and logical types, with their parameters: equal keys read as the same DuckDB type. */
  type: string;
  nested: boolean;
}

/** "PAR1": the last four bytes of every Parquet file, and its first four. */
const MAGIC = 0x31524150;
const MAGIC_BYTES = 4;
/** The footer's length (u32, little-endian) and the magic, after the footer. */
const TAIL_BYTES = 8;

/** The top-level columns of the Parquet file at `local`, or undefined when its footer cannot be read here. */
export function footerColumns(local: string): FooterColumn[] | undefined {
  const schema = footerSchema(local);
  return schema === undefined ? undefined : topLevel(schema);
}

/** Every element of the file's schema, depth first, or undefined when its footer cannot be read here. */
export function footerSchema(local: string): SchemaNode[] | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(local, 'r');
    const size = fstatSync(fd).size;
    if (size < MAGIC_BYTES + TAIL_BYTES) return undefined;
    const tail = Buffer.alloc(TAIL_BYTES);
    if (readSync(fd, tail, 0, TAIL_BYTES, size - TAIL_BYTES) !== TAIL_BYTES || tail.readUInt32LE(4) !== MAGIC) return undefined;
    const length = tail.readUInt32LE(0);
    if (MAGIC_BYTES + length + TAIL_BYTES > size) return undefined;
    const footer = new Uint8Array(length);
    if (readSync(fd, footer, 0, length, size - TAIL_BYTES - length) !== length) return undefined;
    return schemaOf(footer);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** One element of a Parquet schema, as read here or as DuckDB's parquet_schema lists it. */
export interface SchemaNode {
  name: string;
  fieldId: number | null;
  children: number;
  type: string;
}

/**
 * The root's children, from a file's schema listed depth first: the root, then each column and, after a
 * group, its members. Undefined when the list does not close every group it opens.
 */
export function topLevel(schema: readonly SchemaNode[]): FooterColumn[] | undefined {
  const [root, ...rest] = schema;
  if (root === undefined) return undefined;
  const out: FooterColumn[] = [];
  // How many members each open group still has to list, the root first; a group is closed once it has none.
  const open = root.children > 0 ? [root.children] : [];
  for (const e of rest) {
    if (open.length === 0) return undefined;
    if (open.length === 1) out.push({ name: e.name, fieldId: e.fieldId, type: e.type, nested: e.children > 0 });
    open[open.length - 1]!--;
    if (e.children > 0) open.push(e.children);
    while (open.length > 0 && open.at(-1) === 0) open.pop();
  }
  return open.length === 0 ? out : undefined;
}

// parquet.thrift's FileMetaData, as far as common writers fill it in (Apache Parquet's format, 2.11). A footer
// with anything else (encryption, a field added since) is read by DuckDB instead.
const i32: Shape = { kind: 'i32' };
const i64: Shape = { kind: 'i64' };
const bool: Shape = { kind: 'bool' };
const binary: Shape = { kind: 'binary' };
const empty: Shape = { kind: 'struct', fields: {} };
const struct = (fields: Record<number, Shape>, required: number[] = []): Shape => ({ kind: 'struct', fields, required });
const union = (fields: Record<number, Shape>): Shape => ({ kind: 'struct', fields, union: true });
const list = (of: Shape): Shape => ({ kind: 'list', of });

const timeUnit = union({ 1: empty, 2: empty, 3: empty });
const logicalType = union({
  1: empty,
  2: empty,
  3: empty,
  4: empty,
  5: struct({ 1: i32, 2: i32 }, [1, 2]),
  6: empty,
  7: struct({ 1: bool, 2: timeUnit }, [1, 2]),
  8: struct({ 1: bool, 2: timeUnit }, [1, 2]),
  10: struct({ 1: { kind: 'i8' }, 2: bool }, [1, 2]),
  11: empty,
  12: empty,
  13: empty,
  14: empty,
  15: empty,
});
const schemaElement = struct({ 1: i32, 2: i32, 3: i32, 4: binary, 5: i32, 6: i32, 7: i32, 8: i32, 9: i32, 10: logicalType }, [4]);
const keyValue = struct({ 1: binary, 2: binary }, [1]);
const statistics = struct({ 1: binary, 2: binary, 3: i64, 4: i64, 5: binary, 6: binary, 7: bool, 8: bool });
const sizeStatistics = struct({ 1: i64, 2: list(i64), 3: list(i64) });
const columnMetaData = struct(
  {
    1: i32,
    2: list(i32),
    3: list(binary),
    4: i32,
    5: i64,
    6: i64,
    7: i64,
    8: list(keyValue),
    9: i64,
    10: i64,
    11: i64,
    12: statistics,
    13: list(struct({ 1: i32, 2: i32, 3: i32 }, [1, 2, 3])),
    14: i64,
    15: i32,
    16: sizeStatistics,
  },
  [1, 2, 3, 4, 5, 6, 7, 9],
);
const columnChunk = struct({ 1: binary, 2: i64, 3: columnMetaData, 4: i64, 5: i32, 6: i64, 7: i32 }, [2]);
const rowGroup = struct({ 1: list(columnChunk), 2: i64, 3: i64, 4: list(struct({ 1: i32, 2: bool, 3: bool }, [1, 2, 3])), 5: i64, 6: i64, 7: { kind: 'i16' } }, [1, 2, 3]);
const fileMetaData = struct({ 1: i32, 2: list(schemaElement), 3: i64, 4: list(rowGroup), 5: list(keyValue), 6: binary, 7: list(union({ 1: empty })) }, [1, 2, 3, 4]);

/**
 * The schema of a FileMetaData: its elements, each with its name, field id, number of children and a type key
 * made of every other field it sets (equal keys: equal elements, which DuckDB reads alike). Undefined where the
 * footer strays from the shape above, or where DuckDB would refuse it: a name that is not UTF-8, a negative count.
 */
function schemaOf(footer: Uint8Array): SchemaNode[] | undefined {
  const meta = readCompact(footer, fileMetaData) as StructValue;
  const out: SchemaNode[] = [];
  for (const e of meta[2] as StructValue[]) {
    const name = utf8(e[4] as Uint8Array);
    const children = (e[5] as number | undefined) ?? 0;
    if (name === undefined || children < 0) return undefined;
    const { 4: _name, 5: _children, 9: fieldId, ...rest } = e;
    out.push({ name, fieldId: (fieldId as number | undefined) ?? null, children, type: JSON.stringify(rest, bytesAsHex) });
  }
  return out;
}

const bytesAsHex = (_key: string, v: Value) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v);

// A leading byte-order mark is part of a name, as DuckDB keeps it.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text, unless they are not UTF-8 (DuckDB refuses such a name). */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
