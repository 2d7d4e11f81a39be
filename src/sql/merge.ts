// MERGE INTO … USING … ON … WHEN [NOT] MATCHED … through catalog.sql, in DuckDB's syntax: DuckDB runs the
// statement on the target's live rows in the scratch database (rewrite.ts), held there as a table of the
// target's columns alone, since a MERGE's INSERT VALUES without a column list fills every column. Each row's
// DuckDB rowid ties it to the file, row number and row id it came from: DuckDB keeps a table's rowids through
// a dropped column and through a MERGE's updates and deletes, and numbers the rows it inserts after the ones
// it had. So afterwards a row whose rowid is gone was deleted, one whose values differ was updated — deleted
// where it was and written anew carrying its old row id, as UPDATE does (decision 0012) — and one past the
// rows it started with is new and gets a new id. One commit, based on the snapshot the rows were read at.
import type { TableInfo } from '../read/records.js';
import type { ReadState } from '../read/read-state.js';
import type { StatementFiles } from './statement-files.js';
import type { PlanNode } from './mirror.js';
import type { PlaneContext, SqlOptions, SqlResult } from './query.js';
import { StrataError } from '../errors.js';
import { deleteFiles, FILE, POS, rewriteRows, ROWID, rowDiffers } from './rewrite.js';
import { ident } from './sql-text.js';
import { ROW_ID_COLUMN } from './table-scan.js';
import { DEFAULT_TARGET_FILE_SIZE, writeDataFiles } from './write-files.js';

/** The column of the rows as they were that holds each row's DuckDB rowid in the target. */
const RID = ident('__strata_rid');

const columnsOf = (table: TableInfo) => table.columns.map((col) => ident(col.name));

const differs = (table: TableInfo, a: string, b: string) => `(${rowDiffers(table.columns, a, b)})`;

/** A MERGE action as its plan holds it. */
interface MergeAction {
  action_type: string;
  /** DuckDB runs this UPDATE as a delete and an insert (it sets a LIST, ARRAY or MAP column): the row's rowid changes. */
  update_is_del_and_insert?: boolean;
}

export async function mergeRows(ctx: PlaneContext, r: ReadState, text: string, plan: PlanNode, node: PlanNode, onProgress: SqlOptions['onProgress'], held: StatementFiles): Promise<SqlResult> {
  const actions = (node.actions as { key: string; value: MergeAction[] }[]).flatMap((a) => a.value);
  if (actions.some((a) => a.action_type === 'MERGE_UPDATE' && a.update_is_del_and_insert === true)) {
    // Its rowid is how the row is told from a new one here: a row DuckDB moves would lose its row id.
    throw new StrataError(
      'INVALID_ARGUMENT',
      'this MERGE updates a LIST, ARRAY or MAP column (or sets every column, UPDATE SET *, of a table that has one), which DuckDB runs as a delete and an insert, so the row would lose its row id; nothing was written — update those rows with UPDATE … FROM, which keeps them',
    );
  }
  return rewriteRows(ctx, r, text, plan, node, onProgress, held, {
    verb: 'MERGE INTO',
    before: async (s, target, table) => {
      const was = s.name('__strata_was');
      await s.run(`CREATE TABLE ${was} AS SELECT rowid AS ${RID}, ${[FILE, POS, ROWID, ...columnsOf(table)].join(', ')} FROM ${target}`);
      for (const col of [FILE, POS, ROWID]) await s.run(`ALTER TABLE ${target} DROP COLUMN ${col}`);
      return was;
    },
    files: async ({ s, target, table, scan, before }) => {
      const now = s.name(target);
      const had = await s.count(`SELECT count(*) FROM ${before}`);
      const gone = s.name('__strata_gone');
      await s.run(
        `CREATE TABLE ${gone} AS SELECT w.${FILE}, w.${POS} FROM ${before} w LEFT JOIN ${now} t ON t.rowid = w.${RID} ` +
          `WHERE t.rowid IS NULL OR ${differs(table, 't', 'w')}`,
      );
      const removed = await deleteFiles(ctx, s, target, table, scan, gone);
      const to = { ...target, info: table, targetFileSize: DEFAULT_TARGET_FILE_SIZE, onProgress: undefined, message: '' };
      const columns = columnsOf(table);
      const updated = await writeDataFiles(
        ctx,
        s.c,
        to,
        `SELECT ${columns.map((col) => `t.${col}`).join(', ')}, w.${ROWID} AS ${ident(ROW_ID_COLUMN)} FROM ${now} t JOIN ${before} w ON t.rowid = w.${RID} WHERE ${differs(table, 't', 'w')} ORDER BY w.${ROWID}`,
        true,
      );
      const inserted = await writeDataFiles(ctx, s.c, to, `SELECT ${columns.join(', ')} FROM ${now} WHERE rowid >= ${had} ORDER BY rowid`);
      return { removed, added: [...updated, ...inserted] };
    },
  });
}
