// UPDATE … SET … WHERE … through catalog.sql: DuckDB updates the target's rows in the scratch database (each
// row carrying its file, row number and row id, delete.ts); a row whose values changed is deleted where it
// was (a cumulative positional delete file per data file) and written anew with its old row id carried in
// the file (DuckLake's _ducklake_internal_row_id), so the row keeps its identity across the update. One
// commit, based on the snapshot the rows were read at. A row set to the values it had changes nothing.
import type { Reader } from '../read/reader.js';
import { withProgress } from './engine.js';
import type { Held } from './local-files.js';
import { type Named, type PlanNode, tablesRead } from './mirror.js';
import { columnsOf, type PlaneContext, type SqlOptions, type SqlResult } from './query.js';
import { Scratch } from './scratch.js';
import { ident } from './sql-text.js';
import { ROW_ID_COLUMN } from './table-scan.js';
import { exactValues } from './values.js';
import { deleteFiles, FILE, POS, ROWID, targetRows } from './delete.js';
import { writeDataFiles } from './write-files.js';

const MiB = 2 ** 20;

export async function updateRows(ctx: PlaneContext, r: Reader, text: string, plan: PlanNode, node: PlanNode, onProgress: SqlOptions['onProgress'], held: Held[]): Promise<SqlResult> {
  const info = node.table_info as Named;
  const target = { schema: info.schema, table: info.table };
  return ctx.engine.withConnection((c) =>
    Scratch.with(c, async (s) => {
      await s.reading(ctx, r, target, tablesRead(plan), held);
      const { table, scan } = await targetRows(ctx, r, s, target, held);
      const before = s.name('__strata_before');
      await s.run(`CREATE TABLE ${before} AS SELECT * FROM ${s.name(target)}`);
      await s.views(r);
      const result = await withProgress(c, onProgress, () => c.runAndReadAll(text));
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
        c,
        { ...target, info: table, targetFileSize: 128 * MiB, onProgress: undefined, message: '' },
        `SELECT ${columns.join(', ')}, ${ROWID} AS ${ident(ROW_ID_COLUMN)} FROM ${changed} ORDER BY ${ROWID}`,
        true,
      );
      const committed =
        removed.length === 0
          ? null
          : (
              await ctx.transaction(
                async (tx) => {
                  for (const spec of removed) await tx.addDeleteFile(target.schema, target.table, spec);
                  for (const spec of added) await tx.addDataFile(target.schema, target.table, spec);
                },
                { message: `UPDATE ${target.schema}.${target.table}`, basedOn: r.snapshot.id },
              )
            ).snapshot;
      return { rows: result.convertRowObjects(await exactValues()) as Record<string, unknown>[], columns: columnsOf(result), snapshot: committed ?? r.snapshot.id, files: s.files };
    }),
  );
}
