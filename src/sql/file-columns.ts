// Whose columns a Parquet data file holds, by field id or by name (docs/DESIGN.md §8.1, decision 0041). The catalog
// reads files by Parquet field id (= its column ids); DuckDB reads a column whose file lacks that id as its
// default, so a file written without field ids would read as NULLs. Such a file is read by name instead,
// through a mapping recorded when it is registered (DuckLake's map_by_name): each of its columns onto the
// table column of that name, of the same type or one the column widens from, every column of the table in
// the file and no other — else it is refused, saying how to write field ids. A file the store did not hold
// when it was registered was not looked at then: the first statement of a process to read it checks that its
// columns carry field ids, and refuses it (CORRUPT) if they do not.
import type { DuckDBConnection } from '@duckdb/node-api';
import { isWidening, nestedType } from '../../keys/column-types.js';
import type { NameMappingColumn } from '../../keys/name-mappings.js';
import { StrataError } from '../errors.js';
import type { ColumnInfo } from '../read/records.js';
import { duckType, lakeType } from './duck-types.js';
import { type Connections, run } from './engine.js';
import { literal } from './sql-text.js';
import { type FooterColumn, footerColumns, type SchemaNode, topLevel } from './parquet-footer.js';
import { ROW_ID_FIELD_ID } from './table-scan.js';

/** A top-level column of a Parquet file: its name, its field id if it has one, its DuckDB type. */
export interface FileColumn {
  name: string;
  fieldId: number | null;
  type: string;
}

const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

/** How to write a file the catalog reads by its column ids: said wherever a file without them is refused. */
const HOW = "write it with DuckDB's COPY … (FORMAT parquet, FIELD_IDS {column: id, …}) giving each column its id in the catalog (reader.table() lists them), or name its columns as the table does";

/** The top-level columns of each file (by local path), from their footers: their field ids, then one query per file for the types. */
export async function fileColumns(c: DuckDBConnection, locals: readonly string[]): Promise<Map<string, FileColumn[]>> {
  const footers = await topLevelColumns(locals, (work) => work(c));
  const out = new Map<string, FileColumn[]>();
  for (const local of locals) {
    const described = (await run(() => c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${literal(local)})`))).getRowObjectsJS() as { column_name: string; column_type: string }[];
    const fieldIds = (footers.get(local) ?? []).map((x) => x.fieldId);
    out.set(local, described.map((d, i) => ({ name: d.column_name, type: d.column_type, fieldId: fieldIds[i] ?? null })));
  }
  return out;
}

/**
 * The top-level columns of each file, read from its footer here (parquet-footer.ts); the files whose footers
 * cannot be read here go to DuckDB, in one query on a connection `withDuckDB` gives, whose error says why.
 */
async function topLevelColumns(
  locals: readonly string[],
  withDuckDB: <T>(work: (c: DuckDBConnection) => Promise<T>) => Promise<T>,
): Promise<Map<string, FooterColumn[]>> {
  const out = new Map<string, FooterColumn[]>();
  const unread: string[] = [];
  for (const local of locals) {
    const columns = footerColumns(local);
    if (columns === undefined) unread.push(local);
    else out.set(local, columns);
  }
  if (unread.length > 0) for (const [local, columns] of await withDuckDB((c) => duckTopLevelColumns(c, unread))) out.set(local, columns);
  return out;
}

/** topLevelColumns, as DuckDB's parquet_schema lists them. */
async function duckTopLevelColumns(c: DuckDBConnection, locals: readonly string[]): Promise<Map<string, FooterColumn[]>> {
  const rows = (
    await run(() =>
      c.runAndReadAll(
        `SELECT file_name, name, field_id, num_children, concat_ws('/', type, repetition_type, converted_type, logical_type, scale, precision) AS type ` +
          `FROM parquet_schema([${locals.map(literal).join(', ')}])`,
      ),
    )
  ).getRowObjectsJS() as { file_name: string; name: string; field_id: number | bigint | null; num_children: number | bigint | null; type: string }[];
  // parquet_schema lists each file's elements in order, its root first.
  const byFile = new Map<string, SchemaNode[]>();
  for (const r of rows) {
    let nodes = byFile.get(r.file_name);
    if (nodes === undefined) byFile.set(r.file_name, (nodes = []));
    nodes.push({ name: r.name, fieldId: r.field_id === null ? null : Number(r.field_id), children: Number(r.num_children ?? 0), type: r.type });
  }
  return new Map([...byFile].map(([file, nodes]) => [file, topLevel(nodes) ?? []]));
}

/**
 * How a file read by field id can be read by name instead: each field id's column name, and a key equal for
 * files whose top-level columns are the same names, ids and Parquet types (one read_parquet reads them
 * alike). DuckDB reads a file through a field-id `schema` on one thread, by name on all of them.
 */
export interface FileLayout {
  names: ReadonlyMap<number, string>;
  key: string;
}

/** A file's layout, unless its columns cannot stand in for its field ids: a nested one, or names DuckDB would not tell apart. */
function layoutOf(columns: readonly FooterColumn[]): FileLayout | undefined {
  if (columns.some((c) => c.nested || c.fieldId === null)) return undefined;
  if (new Set(columns.map((c) => c.name.toLowerCase())).size !== columns.length) return undefined;
  return { names: new Map(columns.map((c) => [c.fieldId!, c.name])), key: JSON.stringify(columns.map((c) => [c.name, c.fieldId, c.type])) };
}

/**
 * Whether a file with `file` columns is read as table `table` by field id: every column of its own carries one,
 * each naming a column of the table (a row id DuckLake carries aside). False when none does (it is read by
 * name); refused (INVALID_ARGUMENT) when only some do, or one names no column of the table.
 */
export function readByFieldIds(table: string, columns: readonly ColumnInfo[], path: string, file: readonly { name: string; fieldId: number | null }[]): boolean {
  const own = file.filter((f) => f.fieldId !== ROW_ID_FIELD_ID);
  const withIds = own.filter((f) => f.fieldId !== null);
  if (withIds.length === own.length && own.length > 0) {
    const ids = new Set(columns.map((c) => c.id as number));
    const stray = withIds.find((f) => !ids.has(f.fieldId!));
    if (stray) throw invalid(`data file ${path}: its column ${stray.name} has field id ${stray.fieldId}, which is no column of ${table} (its column ids: ${[...ids].join(', ')}); ${HOW}`);
    return true;
  }
  if (withIds.length > 0) throw invalid(`data file ${path}: some of its columns carry field ids (${withIds.map((f) => f.name).join(', ')}) and others do not, so it can be read neither by id nor by name; ${HOW}`);
  return false;
}

/**
 * How a file with `file` columns is read as table `table` with `columns` (its live ones): undefined when its
 * columns carry field ids (each naming a column of the table), else the name mapping to record with it.
 * Refuses (INVALID_ARGUMENT) a file it cannot read either way.
 */
export function nameMappingOf(table: string, columns: readonly ColumnInfo[], path: string, file: readonly FileColumn[]): NameMappingColumn[] | undefined {
  if (readByFieldIds(table, columns, path, file)) return undefined;
  const own = file.filter((f) => f.fieldId !== ROW_ID_FIELD_ID);
  const byName = new Map(own.map((f) => [f.name, f]));
  const rows: NameMappingColumn[] = [];
  const taken = new Set<FileColumn>();
  for (const c of columns) {
    const f = byName.get(c.name) ?? uniqueFolded(own, c.name);
    if (f === undefined) throw invalid(`data file ${path} carries no field ids, and has no column named ${c.name}, which ${table} has: it cannot be read by name; ${HOW}`);
    checkType(table, path, c, f);
    taken.add(f);
    rows.push(...entries(c, f.name, null, rows.length));
  }
  const extra = own.filter((f) => !taken.has(f));
  if (extra.length > 0) throw invalid(`data file ${path} carries no field ids, and its columns ${extra.map((f) => f.name).join(', ')} are not columns of ${table}: it cannot be read by name; ${HOW}`);
  return rows;
}

/** The one column whose name equals `name` but for case, as DuckDB's names compare. */
function uniqueFolded(file: readonly FileColumn[], name: string): FileColumn | undefined {
  const hits = file.filter((f) => f.name.toLowerCase() === name.toLowerCase());
  return hits.length === 1 ? hits[0] : undefined;
}

/** A file column is read as the table's when it has its type, or one the column widens from (nested: the same type). */
function checkType(table: string, path: string, c: ColumnInfo, f: FileColumn): void {
  const want = duckType(c);
  if (nestedType(c.type) !== undefined) {
    if (sameType(f.type, want)) return;
  } else {
    const from = lakeType(f.type);
    if (from !== undefined && (from === c.type || isWidening(from, c.type))) return;
  }
  throw invalid(`data file ${path}: its column ${f.name} is ${f.type}, and column ${c.name} of ${table} is ${want}, which it does not widen to; write it as ${want}`);
}

/** DuckDB's spelling of a type, quotes and spaces aside: nested types compare as DESCRIBE prints them. */
const sameType = (a: string, b: string) => a.replaceAll('"', '').replaceAll(' ', '') === b.replaceAll('"', '').replaceAll(' ', '');

/** The mapping rows of column `c` read from the file's `source`, and of its fields, depth first, ids from `next`. */
function entries(c: ColumnInfo, source: string, parent: number | null, next: number): NameMappingColumn[] {
  const own: NameMappingColumn = { columnId: next, sourceName: source, targetFieldId: c.id, parentColumn: parent, isPartition: false };
  const out = [own];
  for (const child of c.children ?? []) out.push(...entries(child, child.name, own.columnId, next + out.length));
  return out;
}

/**
 * Which files carry field ids on their columns, read once per process and file (and told of the files this
 * process wrote, which do): what the first read of a file registered unseen is checked against. The footer
 * read for it also gives the file's layout, kept with it.
 */
export class FieldIdChecks {
  /** Files this process wrote with field ids, by identity (key, size, CRC). */
  private readonly written = new Set<string>();
  /** By identity: what a file's footer says, once read (a failed read is forgotten, and read again). */
  private readonly footers = new Map<string, Promise<{ fieldIds: boolean; layout: FileLayout | undefined }>>();

  constructor(private readonly engine: Connections) {}

  /** A file this process wrote with field ids. */
  wrote(identity: string): void {
    this.written.add(identity);
  }

  /** Whether this process knows the file's columns carry field ids (it wrote it, or read it). */
  async wroteWithFieldIds(identity: string): Promise<boolean> {
    return this.written.has(identity) || (await this.footers.get(identity)?.catch(() => undefined))?.fieldIds === true;
  }

  /**
   * Throws CORRUPT naming the first of the files (read by field id: no mapping) whose columns carry no field
   * ids: read by them, every column would be NULL. Otherwise each file's layout, in order, where its footer
   * allows one; a file this process wrote is looked at too, once (one query for all of a statement's), and is
   * read by field id when its footer cannot be read.
   */
  async carried(files: readonly { local: string; identity: string; named: string }[]): Promise<(FileLayout | undefined)[]> {
    const fresh = files.filter((f) => !this.footers.has(f.identity));
    if (fresh.length > 0) {
      const reading = topLevelColumns(
        fresh.map((f) => f.local),
        (work) => this.engine.withConnection(work),
      );
      for (const f of fresh) {
        const footer = reading.then((all) => {
          const columns = all.get(f.local) ?? [];
          return { fieldIds: columns.every((c) => c.fieldId !== null), layout: layoutOf(columns) };
        });
        this.footers.set(f.identity, footer);
        footer.catch(() => this.footers.delete(f.identity));
      }
    }
    // Taken before waiting: a failed read leaves the map while the loop waits on an earlier file.
    const reads = files.map((f) => this.footers.get(f.identity)!);
    const out: (FileLayout | undefined)[] = [];
    for (const [i, f] of files.entries()) {
      const footer = await reads[i]!.catch((e: unknown) => {
        if (this.written.has(f.identity)) return undefined;
        throw e;
      });
      if (footer !== undefined && !footer.fieldIds && !this.written.has(f.identity)) {
        throw new StrataError(
          'CORRUPT',
          `${f.named} is registered to be read by Parquet field id, and its columns carry none (it was not in the store when it was registered, so no name mapping was recorded): ` +
            `read by field id every column would be NULL. Nothing was read from it; register it again now that the store holds it (removeDataFile, then addDataFile reads it and maps its columns by name), or ${HOW}`,
        );
      }
      out.push(footer?.layout);
    }
    return out;
  }
}
