// Compaction: a table's small data files, and every data file with deleted rows, rewritten by DuckDB into
// files of about the target size holding only their live rows, each row carrying its id (so row ids, and
// tableChanges across the commit, are unchanged: it moved every row and changed none). One maintenance
// commit (`previous` skips it), based on the snapshot read: a delete from one of the files committed meanwhile is CONFLICT rather
// than lost. The replaced files stay readable by the snapshots before it and go with GC as usual.
import type { SnapshotId } from '../../keys/ids.js';
import { options, positiveCount } from '../arguments.js';
import { StatementFiles } from './statement-files.js';
import { type PlaneContext, scanAt } from './query.js';
import { ident } from './sql-text.js';
import { POSITION, ROW_ID_COLUMN } from './table-scan.js';
import { DEFAULT_TARGET_FILE_SIZE, writeDataFiles } from './write-files.js';

export interface CompactOptions {
  /** Files under this size are merged, and written files roll over past it (default 128 MiB). */
  targetFileSize?: number;
}

export interface CompactResult {
  /** The maintenance commit (null: nothing to compact). */
  snapshot: SnapshotId | null;
  /** Data files replaced, and the delete files folded into the new ones. */
  removed: { dataFiles: number; deleteFiles: number };
  added: { path: string; recordCount: number }[];
  rows: number;
}

export async function compact(ctx: PlaneContext, schema: string, table: string, given: CompactOptions | undefined): Promise<CompactResult> {
  ctx.writable();
  const { targetFileSize: size } = options('compact()', given, ['targetFileSize']);
  const targetFileSize = positiveCount('targetFileSize', size, DEFAULT_TARGET_FILE_SIZE);
  const r = await ctx.reader();
  const held = new StatementFiles(ctx.files, 'before-read');
  try {
    const info = await r.table(schema, table);
    const files = await r.dataFiles(schema, table);
    const deletes = await r.deleteFiles(schema, table);
    const withDeletes = new Set(deletes.map((d) => d.dataFileId));
    const chosen = files.filter((f) => withDeletes.has(f.id) || f.fileSizeBytes < targetFileSize);
    const nothing = { snapshot: null, removed: { dataFiles: 0, deleteFiles: 0 }, added: [], rows: 0 };
    if (chosen.length === 0 || (chosen.length === 1 && !withDeletes.has(chosen[0]!.id))) return nothing;
    const ids = new Set(chosen.map((f) => f.id));
    // The scan of just the chosen files: a reader's listing, narrowed by what a statement would read.
    const scan = await scanAt(ctx, r, { schema, table, at: undefined, filter: undefined }, held, { listed: 0, skipped: 0 }, true, ids);
    const columns = info.columns.map((c) => ident(c.name));
    const rowid = ident(POSITION[2]);
    const added = await ctx.engine.withConnection((c) =>
      writeDataFiles(
        ctx,
        c,
        { schema, table, info, targetFileSize, onProgress: undefined, message: '' },
        `SELECT ${columns.join(', ')}, ${rowid} AS ${ident(ROW_ID_COLUMN)} FROM (${scan.sql}) ORDER BY ${rowid}`,
        true,
      ),
    );
    const { snapshot } = await ctx.transaction(
      async (tx) => {
        for (const f of chosen) await tx.removeDataFile(schema, table, f.id);
        for (const spec of added) await tx.addDataFile(schema, table, spec);
      },
      { message: `compact ${schema}.${table}: ${chosen.length} files into ${added.length}`, maintenance: true, basedOn: r.snapshot.id },
    );
    return {
      snapshot,
      removed: { dataFiles: chosen.length, deleteFiles: deletes.filter((d) => ids.has(d.dataFileId)).length },
      added: added.map((a) => ({ path: a.path, recordCount: a.recordCount })),
      rows: added.reduce((n, a) => n + a.recordCount, 0),
    };
  } finally {
    held.release();
    await r.close();
  }
}
