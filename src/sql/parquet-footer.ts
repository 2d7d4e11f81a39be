// A Parquet file's top-level columns as its footer declares them, read here: the first statement of a process to
// read a file looks at its footer (decision 0048), and asking DuckDB for it was a query of its own, a round trip
// to its threads that was most of a small table's first read (decision 0054). The footer's Thrift is read as
// DuckDB's own Thrift code reads it (thrift-compact.ts), since what matters is what DuckDB will make of the file:
// a field id it would not see must not be seen here. A footer this cannot read is not judged here: the caller
// asks DuckDB, whose error names what is wrong with the file.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CompactReader, Wire } from './thrift-compact.js';

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

/**
 * The schema of a FileMetaData: its elements, each with its name, field id, number of children and a type key
 * made of every other field it sets (equal keys: equal elements, which DuckDB reads alike). Undefined where DuckDB
 * would refuse the footer, or where this cannot tell what it would make of it: a field it requires missing, a
 * name that is not UTF-8, a negative count.
 */
function schemaOf(footer: Uint8Array): SchemaNode[] | undefined {
  const r = new CompactReader(footer);
  let schema: SchemaNode[] | undefined;
  let invalid = false;
  const set = new Set<number>();
  r.struct((id, wire) => {
    // FileMetaData: version i32, schema list, num_rows i64, row_groups list (all required); the rest optional.
    const want = [undefined, Wire.I32, Wire.List, Wire.I64, Wire.List][id];
    if (want !== wire) return false;
    set.add(id);
    if (id !== 2) return false;
    // As Thrift's generated code does, each element is read as a struct whatever the list says they are.
    const { size } = r.listHeader();
    schema = [];
    for (let i = 0; i < size; i++) {
      const e = element(r);
      if (e === undefined) invalid = true;
      else schema.push(e);
    }
    return true;
  });
  return invalid || set.size < 4 ? undefined : schema;
}

const strict = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, unless they are not UTF-8. */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** One SchemaElement, or undefined when it has no name or one that is not UTF-8 (DuckDB refuses both). */
function element(r: CompactReader): SchemaNode | undefined {
  let name: string | undefined;
  let fieldId: number | null = null;
  let children = 0;
  // type, type_length, repetition_type, converted_type, scale, precision by field id; logicalType as its bytes.
  const rest: Record<number, number | string> = {};
  r.struct((id, wire) => {
    if (id === 4 && wire === Wire.Binary) {
      name = utf8(r.binary());
      return true;
    }
    if (id === 10 && wire === Wire.Struct) {
      const start = r.position;
      r.skip(Wire.Struct, 1, false);
      rest[id] = Buffer.from(r.since(start)).toString('hex');
      return true;
    }
    if (id < 1 || id > 9 || id === 4 || wire !== Wire.I32) return false;
    const v = r.i32();
    if (id === 9) fieldId = v;
    else if (id === 5) children = v;
    else rest[id] = v;
    return true;
  });
  if (name === undefined || children < 0) return undefined;
  return { name, fieldId, children, type: JSON.stringify(rest) };
}
