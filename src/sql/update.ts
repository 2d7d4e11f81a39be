// UPDATE … SET … WHERE … through catalog.sql: DuckDB updates the target's rows in the scratch database
// (rewrite.ts); a row whose values changed is deleted where it was (a cumulative positional delete file per
// data file) and written anew with its old row id carried in the file (DuckLake's _ducklake_internal_row_id),
// so the row keeps its identity across the update (decision 0012). One commit. A row set to the values it
// had changes nothing.
import { StrataError } from '../errors.js';
import type { ReadState } from '../read/read-state.js';
import type { ColumnInfo, TableInfo } from '../read/records.js';
import type { StatementFiles } from './statement-files.js';
import type { PlanNode } from './mirror.js';
import type { PlaneContext, SqlOptions, SqlResult } from './query.js';
import { deleteFiles, FILE, keptBefore, POS, rewriteRows, ROWID, rowDiffers } from './rewrite.js';
import { ident } from './sql-text.js';
import { ROW_ID_COLUMN } from './table-scan.js';
import { DEFAULT_TARGET_FILE_SIZE, writeDataFiles } from './write-files.js';

export function updateRows(ctx: PlaneContext, r: ReadState, text: string, plan: PlanNode, node: PlanNode, onProgress: SqlOptions['onProgress'], held: StatementFiles): Promise<SqlResult> {
  return rewriteRows(ctx, r, text, plan, node, onProgress, held, {
    verb: 'UPDATE',
    // Only the columns the UPDATE sets can change (the plan names them by position): only they are compared.
    before: (s, target, table) => keptBefore(s, target, set(node, table).map((col) => ident(col.name))),
    files: async ({ s, target, table, scan, before }) => {
      const columns = table.columns.map((col) => ident(col.name));
      const compared = set(node, table);
      const changed = s.name('__strata_changed');
      // An UPDATE changes rows in place: row i of the table is row i of its copy from before, so the two are
      // joined by position, not hashed on (file, row). A row out of line would be a DuckDB we do not know: refused.
      await s.run(
        `CREATE TABLE ${changed} AS SELECT a.*, a.${FILE} IS DISTINCT FROM b.${FILE} OR a.${POS} IS DISTINCT FROM b.${POS} AS __strata_misaligned ` +
          `FROM ${s.name(target)} a POSITIONAL JOIN ${before} b ` +
          `WHERE __strata_misaligned OR ${rowDiffers(compared, 'a', 'b')}`,
      );
      if ((await s.count(`SELECT count(*) FROM ${changed} WHERE __strata_misaligned`)) > 0) {
        throw new StrataError('INVALID_ARGUMENT', 'UPDATE moved rows of the scratch table out of their order; nothing was written (report this: DuckDB kept updates in place so far)');
      }
      const removed = await deleteFiles(ctx, s, target, table, scan, changed);
      const added = await writeDataFiles(
        ctx,
        s.c,
        { ...target, info: table, targetFileSize: DEFAULT_TARGET_FILE_SIZE, onProgress: undefined, message: '' },
        `SELECT ${columns.join(', ')}, ${ROWID} AS ${ident(ROW_ID_COLUMN)} FROM ${changed} ORDER BY ${ROWID}`,
        true,
      );
      return { removed, added };
    },
  });
}

/** The columns an UPDATE sets: its plan's `columns` are positions in the table's column order. */
function set(node: PlanNode, table: TableInfo): ColumnInfo[] {
  const ordered = [...table.columns].sort((a, b) => a.order - b.order);
  return (node.columns as number[]).map((i) => ordered[i]!);
}
