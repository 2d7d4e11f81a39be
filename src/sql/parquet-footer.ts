// A Parquet file's top-level columns as its footer declares them, read here: the first statement of a process to
// read a file looks at its footer (decision 0048), and asking DuckDB for it was a query of its own, a round trip
// to its threads that was most of a small table's first read. hyparquet decodes the footer's Thrift. A footer it
// cannot read is not judged here: the caller asks DuckDB, whose error names what is wrong with the file.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parquetMetadata } from 'hyparquet';

/** A top-level column as a file's footer declares it: its name, field id and Parquet type, nested or not. */
export interface FooterColumn {
  name: string;
  fieldId: number | null;
  /** Its physical and logical type: equal keys read as the same DuckDB type. */
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
  let fd: number | undefined;
  try {
    fd = openSync(local, 'r');
    const size = fstatSync(fd).size;
    if (size < MAGIC_BYTES + TAIL_BYTES) return undefined;
    const tail = Buffer.alloc(TAIL_BYTES);
    if (readSync(fd, tail, 0, TAIL_BYTES, size - TAIL_BYTES) !== TAIL_BYTES || tail.readUInt32LE(4) !== MAGIC) return undefined;
    const length = tail.readUInt32LE(0);
    if (MAGIC_BYTES + length + TAIL_BYTES > size) return undefined;
    const footer = new Uint8Array(length + TAIL_BYTES);
    if (readSync(fd, footer, 0, footer.length, size - footer.length) !== footer.length) return undefined;
    return topLevel(parquetMetadata(footer.buffer).schema.map(node));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** One element of a Parquet schema, as both hyparquet and DuckDB's parquet_schema give it. */
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

type SchemaElement = ReturnType<typeof parquetMetadata>['schema'][number];

/** An element as hyparquet decodes it: its type is its physical and logical type, with their parameters. */
const node = (e: SchemaElement): SchemaNode => ({
  name: e.name,
  fieldId: e.field_id ?? null,
  children: e.num_children ?? 0,
  type: JSON.stringify([e.type, e.repetition_type, e.converted_type, e.logical_type, e.scale, e.precision]),
});
