// UPDATE … SET … WHERE … through catalog.sql: DuckDB updates the target's rows in the scratch database
// (rewrite.ts); a row whose values changed is deleted where it was (a cumulative positional delete file per
// data file) and written anew with its old row id carried in the file (DuckLake's _ducklake_internal_row_id),
// so the row keeps its identity across the update (decision 0012). One commit. A row set to the values it
// had changes nothing.
import type { Reader } from '../read/reader.js';
import type { Held } from './local-files.js';
import type { PlanNode } from './mirror.js';
import type { PlaneContext, SqlOptions, SqlResult } from './query.js';
import { deleteFiles, FILE, POS, rewriteRows, ROWID } from './rewrite.js';
import { ident } from './sql-text.js';
import { ROW_ID_COLUMN } from './table-scan.js';
import { writeDataFiles } from './write-files.js';

const MiB = 2 ** 20;

export function updateRows(ctx: PlaneContext, r: Reader, text: string, plan: PlanNode, node: PlanNode, onProgress: SqlOptions['onProgress'], held: Held[]): Promise<SqlResult> {
  return rewriteRows(ctx, r, text, plan, node, onProgress, held, {
    verb: 'UPDATE',
    keep: 'rows',
    files: async ({ s, target, table, scan, before }) => {
      const columns = table.columns.map((col) => ident(col.name));
      const changed = s.name('__strata_changed');
      const row = (alias: string) => `(${columns.map((col) => `${alias}.${col}`).join(', ')})`;
      await s.run(
        `CREATE TABLE ${changed} AS SELECT a.* FROM ${s.name(target)} a JOIN ${before} b ON a.${FILE} = b.${FILE} AND a.${POS} = b.${POS} ` +
          `WHERE ${columns.length === 1 ? `a.${columns[0]} IS DISTINCT FROM b.${columns[0]}` : `${row('a')} IS DISTINCT FROM ${row('b')}`}`,
      );
      const removed = await deleteFiles(ctx, s, target, table, scan, changed);
      const added = await writeDataFiles(
        ctx,
        s.c,
        { ...target, info: table, targetFileSize: 128 * MiB, onProgress: undefined, message: '' },
        `SELECT ${columns.join(', ')}, ${ROWID} AS ${ident(ROW_ID_COLUMN)} FROM ${changed} ORDER BY ${ROWID}`,
        true,
      );
      return { removed, added };
    },
  });
}
