// DELETE FROM … WHERE … through catalog.sql. The target's live rows go into the statement's scratch database
// with the file and row number each came from; DuckDB runs the DELETE as written (its WHERE, USING and
// subqueries bound as in the mirror); the rows it removed become, per data file, a positional delete file
// as DuckLake writes them (file_path, pos) holding every deleted row of that file — the earlier ones too,
// since a new delete file replaces the one before it. A data file whose rows all go is ended instead. One
// commit; two statements deleting from one data file conflict (txn/conflicts.ts).
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { FileId } from '../../keys/ids.js';
import type { Reader } from '../read/reader.js';
import { run, withProgress } from './engine.js';
import type { Held } from './local-files.js';
import { createTable, type Named, type PlanNode, tablesRead } from './mirror.js';
import { columnsOf, type PlaneContext, scanAt, type SqlOptions, type SqlResult } from './query.js';
import { Scratch } from './scratch.js';
import { ident, literal } from './sql-text.js';
import { POSITION } from './table-scan.js';
import { exactValues } from './values.js';
import { newFilePath, storeFile } from './write-files.js';

const [FILE, POS] = POSITION.map(ident) as [string, string];

export async function deleteRows(ctx: PlaneContext, r: Reader, text: string, plan: PlanNode, node: PlanNode, onProgress: SqlOptions['onProgress'], held: Held[]): Promise<SqlResult> {
  const info = node.table_info as Named;
  const target = { schema: info.schema, table: info.table };
  return ctx.engine.withConnection((c) =>
    Scratch.with(c, async (s) => {
      await s.reading(ctx, r, target, tablesRead(plan), held);
      const table = await r.table(target.schema, target.table);
      const scan = await scanAt(ctx, r, { ...target, at: undefined, filter: undefined }, held, s.files, true);
      await s.run(createTable(s.name(target), table, [`${FILE} VARCHAR`, `${POS} BIGINT`]));
      await s.run(`INSERT INTO ${s.name(target)} ${scan.sql}`);
      await s.run(`CREATE TABLE ${s.name('__strata_before')} AS SELECT ${FILE}, ${POS} FROM ${s.name(target)}`);
      await s.views(r);
      const result = await withProgress(c, onProgress, () => c.runAndReadAll(text));
      await s.run(`CREATE TABLE ${s.name('__strata_gone')} AS SELECT ${FILE}, ${POS} FROM ${s.name('__strata_before')} EXCEPT SELECT ${FILE}, ${POS} FROM ${s.name(target)}`);
      const byFile = (await run(() => c.runAndReadAll(`SELECT ${FILE} AS f, count(*) AS n FROM ${s.name('__strata_gone')} GROUP BY ALL`))).getRowObjectsJS() as { f: string; n: bigint }[];
      const specs: { dataFileId: FileId; path: string; deleteCount: number; fileSizeBytes: number }[] = [];
      const fileOf = new Map(scan.files.map((f) => [f.local, f]));
      for (const { f } of byFile) {
        const data = fileOf.get(f)!;
        const earlier = scan.deletes.get(data.id);
        const positions = `SELECT ${POS} AS pos FROM ${s.name('__strata_gone')} WHERE ${FILE} = ${literal(f)}${earlier ? ` UNION ALL SELECT pos FROM read_parquet(${literal(earlier.local)})` : ''}`;
        const local = path.join(tmpdir(), `strata-delete-${randomUUID()}.parquet`);
        try {
          await s.run(`COPY (SELECT ${literal(data.path)} AS file_path, pos::BIGINT AS pos FROM (${positions}) ORDER BY pos) TO ${literal(local)} (FORMAT parquet)`);
          const deleteCount = await s.count(`SELECT count(*) FROM read_parquet(${literal(local)})`);
          const relative = newFilePath({ ...target, info: table }, '-deletes');
          specs.push({ dataFileId: data.id, path: relative, deleteCount, fileSizeBytes: await storeFile(ctx, local, relative) });
        } finally {
          await rm(local, { force: true });
        }
      }
      const committed =
        specs.length === 0
          ? null
          : (
              await ctx.transaction(
                async (tx) => {
                  for (const spec of specs) await tx.addDeleteFile(target.schema, target.table, spec);
                },
                // Based on the snapshot the positions were read at: a concurrent delete from one of these files conflicts.
                { message: `DELETE FROM ${target.schema}.${target.table}`, basedOn: r.snapshot.id },
              )
            ).snapshot;
      return { rows: result.convertRowObjects(await exactValues()) as Record<string, unknown>[], columns: columnsOf(result), snapshot: committed ?? r.snapshot.id, files: s.files };
    }),
  );
}
