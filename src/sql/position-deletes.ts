// A delete file rewritten as a Parquet position-delete file any engine applies by field id: `file_path` (field
// id 2147483546) holding the data file's full location, `pos` (2147483545), sorted. Strata's own delete files
// name the data file by its path in the lake and carry no field ids (DuckLake's form), which is what lets a
// lake move; an engine reading through another catalog needs the full location, so it gets a copy
// (docs/decisions/0046). The copy is made from bytes checked as every statement checks them: the delete file's
// recorded size and CRC, and its positions inside its data file.
import { readFile, rm } from 'node:fs/promises';
import type { DataFileInfo, DeleteFileInfo } from '../read/records.js';
import { run } from './engine.js';
import { recordedFile } from './local-files.js';
import { checkDeletes, type PlaneContext } from './query.js';
import { literal } from './sql-text.js';
import { StatementFiles } from './statement-files.js';

export const FILE_PATH_FIELD_ID = 2147483546;
export const POS_FIELD_ID = 2147483545;

/** The bytes of the copy of `deletes` (of `data`, which an engine finds at `dataLocation`). */
export async function positionDeleteCopy(ctx: PlaneContext, deletes: DeleteFileInfo, data: DataFileInfo, dataLocation: string): Promise<Uint8Array> {
  const held = new StatementFiles(ctx.files);
  try {
    const recorded = recordedFile(ctx.dataPath, deletes);
    const [local] = await held.hold([recorded]);
    await checkDeletes(ctx, [{ file: deletes, local: local!, recordCount: data.recordCount }]);
    const out = `${ctx.engine.path('iceberg-deletes')}.parquet`;
    try {
      await ctx.engine.withConnection((c) =>
        run(() =>
          c.run(
            `COPY (SELECT ${literal(dataLocation)} AS file_path, pos::BIGINT AS pos FROM read_parquet(${literal(local!)}) ORDER BY pos) ` +
              `TO ${literal(out)} (FORMAT parquet, FIELD_IDS {file_path: ${FILE_PATH_FIELD_ID}, pos: ${POS_FIELD_ID}})`,
          ),
        ),
      );
      return new Uint8Array(await readFile(out));
    } finally {
      await rm(out, { force: true });
    }
  } finally {
    held.release();
  }
}
