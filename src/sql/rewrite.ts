// What DELETE, UPDATE and MERGE share: the target's live rows in the statement's scratch database, each with the
// file, row number and row id it came from; DuckDB runs the statement as written (its WHERE, USING and
// subqueries bound as in the mirror); the rows it removed or changed become, per data file, a positional
// delete file as DuckLake writes them (file_path, pos) holding every deleted row of that file — the earlier
// ones too, since a new delete file replaces the one before it (a file whose rows all go is ended instead);
// an UPDATE's new rows a data file carrying their ids (a MERGE's too, and its inserted rows one of new ids). One commit, based on the snapshot the rows were read
// at: two statements changing one data file conflict (txn/conflicts.ts) instead of one undoing the other.
import type { FileId } from '../../keys/ids.js';
import type { ReadState } from '../read/read-state.js';
import type { ColumnInfo, TableInfo } from '../read/records.js';
import { run, withProgress } from './engine.js';
import type { StatementFiles } from './statement-files.js';
import { createTable, type Named, type PlanNode, tablesRead } from './mirror.js';
import { type BoundScan, type PlaneContext, scanAt, type SqlOptions, type SqlResult } from './query.js';
import { targetFilter } from './plan-filter.js';
import { type TouchedRows, touchedRowsQuery } from './touched-rows.js';
import { isStrataError, StrataError } from '../errors.js';
import { holdsToken } from './top-level.js';
import { Scratch } from './scratch.js';
import type { TableRef } from './statement.js';
import { ident, literal } from './sql-text.js';
import { POSITION } from './table-scan.js';
import { rowsOf } from './values.js';
import { type StoredBytes, storeDeleteFile, type WrittenSpec } from './write-files.js';

export const [FILE, POS, ROWID] = POSITION.map(ident) as [string, string, string];

export interface DeleteFileSpec extends StoredBytes {
  dataFileId: FileId;
  path: string;
  deleteCount: number;
}

/**
 * The target's live rows at `r`'s snapshot as a scratch table, each with its file, row number and row id: those
 * `touched` selects (touched-rows.ts, run on them as a view under the target's name) when it is given and runs.
 */
async function targetRows(ctx: PlaneContext, r: ReadState, s: Scratch, target: Named, held: StatementFiles, filter: TableRef['filter'], touched: TouchedRows | undefined): Promise<{ table: TableInfo; scan: BoundScan }> {
  const table = await r.table(target.schema, target.table);
  // Only the files the statement's WHERE may touch: the others' rows cannot go or change.
  const scan = await scanAt(ctx, r, { ...target, at: undefined, filter }, held, s.files, true);
  const kept = touched === undefined ? undefined : await touchedRows(s, s.name(target), scan.sql, touched);
  await s.run(createTable(s.name(target), table, [`${FILE} VARCHAR`, `${POS} BIGINT`, `${ROWID} BIGINT`]));
  await s.run(`INSERT INTO ${s.name(target)} ${kept === undefined ? scan.sql : `FROM ${kept}`}`);
  if (kept !== undefined) await s.run(`DROP TABLE ${kept}`);
  return { table, scan };
}

/**
 * The rows `touched` selects of `scan`, as a scratch table; undefined when DuckDB does not bind it (then every
 * row is kept, and the statement says what is wrong).
 */
async function touchedRows(s: Scratch, name: string, scan: string, touched: TouchedRows): Promise<string | undefined> {
  const kept = s.name('__strata_touched');
  await s.run(`CREATE VIEW ${name} AS ${scan}`);
  try {
    // Prepared: one statement, whatever the text holds.
    const prepared = await run(() => s.c.prepare(`CREATE TABLE ${kept} AS ${touched.query}`));
    try {
      if (touched.params !== undefined) prepared.bind(touched.params);
      await run(() => prepared.run());
    } finally {
      prepared.destroySync();
    }
    return kept;
  } catch (e) {
    // What DuckDB refuses of the query (a name, a type) it refuses of the statement too, which then says so;
    // anything else (a damaged file, memory, a cancel) is the statement's failure.
    if (isStrataError(e, 'INVALID_ARGUMENT') && !/^INTERRUPT/i.test(e.message)) return undefined;
    throw e;
  } finally {
    await s.run(`DROP VIEW ${name}`);
  }
}

/**
 * For each data file with rows in scratch table `gone` (its FILE and POS), a delete file of those rows and
 * the file's earlier deleted ones, put in the store: what addDeleteFile takes.
 */
export async function deleteFiles(ctx: PlaneContext, s: Scratch, target: Named, table: TableInfo, scan: BoundScan, gone: string): Promise<DeleteFileSpec[]> {
  const byFile = (await run(() => s.c.runAndReadAll(`SELECT DISTINCT ${FILE} AS f FROM ${gone}`))).getRowObjectsJS() as { f: string }[];
  const fileOf = new Map(scan.files.map((f) => [f.local, f]));
  const specs: DeleteFileSpec[] = [];
  for (const { f } of byFile) {
    const data = fileOf.get(f)!;
    const earlier = scan.deletes.get(data.id);
    // Each position once (UNION): its count is the rows deleted, and "every row" ends the data file.
    const positions = `SELECT ${POS} AS pos FROM ${gone} WHERE ${FILE} = ${literal(f)}${earlier ? ` UNION SELECT pos FROM read_parquet(${literal(earlier.local)})` : ''}`;
    specs.push({ dataFileId: data.id, ...(await storeDeleteFile(ctx, s.c, { ...target, info: table }, data, positions)) });
  }
  return specs;
}

/** The scratch state after DuckDB ran the statement: the target's rows now, and as they were (`before`). */
export interface Rewritten {
  s: Scratch;
  target: Named;
  table: TableInfo;
  scan: BoundScan;
  /** The scratch table of the rows as they were, as `before` made it. */
  before: string;
}

/**
 * Whether a row of `a` differs from the row of `b` it was, in `columns`: IS DISTINCT FROM, so a NULL set to a
 * value changed it. (0.0 set to -0.0 is no change: DuckDB's own UPDATE keeps 0.0 in a table.)
 */
export function rowDiffers(columns: readonly ColumnInfo[], a: string, b: string): string {
  const row = (alias: string) => columns.map((col) => `${alias}.${ident(col.name)}`).join(', ');
  return columns.length === 1 ? `${row(a)} IS DISTINCT FROM ${row(b)}` : `(${row(a)}) IS DISTINCT FROM (${row(b)})`;
}

/** The scratch table of the target's rows as they were: FILE, POS and the columns `columns` (quoted). */
export async function keptBefore(s: Scratch, target: string, columns: readonly string[]): Promise<string> {
  const before = s.name('__strata_before');
  await s.run(`CREATE TABLE ${before} AS SELECT ${[FILE, POS, ...columns].join(', ')} FROM ${target}`);
  return before;
}

/**
 * Runs a DELETE, UPDATE or MERGE (`node` its plan's LOGICAL_DELETE, LOGICAL_UPDATE or LOGICAL_MERGE_INTO) on
 * the target's rows, then commits what `files` makes of the outcome: delete files to add, and data files.
 */
export async function rewriteRows(
  ctx: PlaneContext,
  r: ReadState,
  text: string,
  plan: PlanNode,
  node: PlanNode,
  onProgress: SqlOptions['onProgress'],
  held: StatementFiles,
  how: {
    verb: string;
    /** Keeps what `files` compares against of the rows in `target` (the scratch table) before the statement runs. */
    before: (s: Scratch, target: string, table: TableInfo) => Promise<string>;
    files: (w: Rewritten) => Promise<{ removed: DeleteFileSpec[]; added: WrittenSpec[] }>;
  },
): Promise<SqlResult> {
  const info = node.table_info as Named;
  const target = { schema: info.schema, table: info.table };
  // DuckDB's rowid of the scratch table is a row's place in the statement's own copy, not its id in the lake:
  // a statement naming it would delete or set other rows than it says (a column of the table of that name is its own).
  if (holdsToken(text, 'ROWID') && !(await r.table(target.schema, target.table)).columns.some((col) => col.name.toUpperCase() === 'ROWID')) {
    throw new StrataError(
      'INVALID_ARGUMENT',
      `${how.verb} ${target.schema}.${target.table} names rowid, which in a statement that writes would be a row's place in the statement's own copy of the rows, not its id in the lake; nothing was written — find the rows by their columns (table_changes() gives each change's rowid, to join on a column)`,
    );
  }
  return ctx.engine.withConnection((c) =>
    Scratch.with(c, async (s) => {
      const reads = tablesRead(plan);
      await s.reading(ctx, r, target, reads, held);
      // A MERGE may change any row (WHEN NOT MATCHED BY SOURCE): every file is read.
      const filter = node.type === 'LOGICAL_MERGE_INTO' ? undefined : targetFilter(plan, node, target);
      const relations = [...reads.map((t) => t.table), ...(ctx.loaded?.keys() ?? [])];
      const touched = await touchedRowsQuery({ text, plan, node, target, relations, params: ctx.params }, ROWID, (q, arg) => ctx.engine.textFunction(q, arg));
      const { table, scan } = await targetRows(ctx, r, s, target, held, filter, touched);
      const before = await how.before(s, s.name(target), table);
      await s.views(r, (q, arg) => ctx.engine.textFunction(q, arg));
      const result = await withProgress(c, onProgress, () => c.runAndReadAll(text, ctx.params));
      const { removed, added } = await how.files({ s, target, table, scan, before });
      const committed =
        removed.length === 0 && added.length === 0
          ? null
          : (
              await ctx.transaction(
                async (tx) => {
                  for (const spec of removed) await tx.addDeleteFile(target.schema, target.table, spec);
                  if (added.length > 0) await tx.addDataFiles(target.schema, target.table, added);
                },
                { message: `${how.verb} ${target.schema}.${target.table}`, basedOn: r.snapshot.id },
              )
            ).snapshot;
      return { ...(await rowsOf(result)), snapshot: committed ?? r.snapshot.id, files: s.files };
    }),
  );
}
