// Compaction: a table's small data files, and every data file with deleted rows, rewritten by DuckDB into
// files of about the target size holding only their live rows, each row carrying its id (so row ids, and
// tableChanges across the commit, are unchanged: it moved every row and changed none). One maintenance commit
// (`previous` skips it), based on the snapshot read. Deletes from the files it rewrites that commit meanwhile
// are carried into the new files (compact-carry.ts) and the commit made again on the newer head, up to
// MAX_CARRIES times; what cannot be carried (rows brought back by a restore) stays CONFLICT. The replaced
// files stay readable by the snapshots before it and go with GC as usual.
import type { SnapshotId } from '../../keys/ids.js';
import { options, positiveCount } from '../arguments.js';
import { isStrataError } from '../errors.js';
import type { ReadState } from '../read/read-state.js';
import { CarriedDeletes } from './compact-carry.js';
import { StatementFiles } from './statement-files.js';
import type { StopOptions } from './stop.js';
import { authorship, committing, noFiles, type PlaneContext, scanAt } from './query.js';
import { ident } from './sql-text.js';
import { POSITION, ROW_ID_COLUMN } from './table-scan.js';
import { DEFAULT_TARGET_FILE_SIZE, writeDataFiles } from './write-files.js';

export interface CompactOptions extends StopOptions {
  /** Files under this size are merged, and written files roll over past it (default 128 MiB). */
  targetFileSize?: number;
  /** The author and message of the maintenance commit (the message defaults to what was compacted). */
  author?: string;
  message?: string;
}

export interface CompactResult {
  /** The maintenance commit (null: nothing to compact). */
  snapshot: SnapshotId | null;
  /** Data files replaced, and the delete files folded into the new ones. */
  removed: { dataFiles: number; deleteFiles: number };
  added: { path: string; recordCount: number }[];
  rows: number;
}

/** How many times a compaction carries deletes that committed meanwhile before it gives up with CONFLICT. */
const MAX_CARRIES = 16;

export async function compact(ctx: PlaneContext, schema: string, table: string, given: CompactOptions | undefined): Promise<CompactResult> {
  ctx.writable();
  const { targetFileSize: size, author, message } = options('compact()', given, ['targetFileSize', 'timeoutMs', 'signal', 'author', 'message']);
  const committed = committing(ctx, authorship({ author, message }));
  const targetFileSize = positiveCount('targetFileSize', size, DEFAULT_TARGET_FILE_SIZE);
  const r = await ctx.reads.reader();
  const held = new StatementFiles(ctx.files);
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
    const scan = await scanAt(ctx, r, { schema, table, at: undefined, filter: undefined }, held, noFiles(), true, ids);
    const columns = info.columns.map((c) => ident(c.name));
    const rowid = ident(POSITION[2]);
    return await ctx.engine.withConnection(async (c) => {
      const added = await writeDataFiles(
        ctx,
        c,
        { schema, table, info, targetFileSize, onProgress: undefined, message: '' },
        `SELECT ${columns.join(', ')}, ${rowid} AS ${ident(ROW_ID_COLUMN)} FROM (${scan.sql}) ORDER BY ${rowid}`,
        true,
      );
      const rewritten = chosen.map((f) => ({ ...f, local: scan.files.find((x) => x.id === f.id)!.local }));
      const carried = new CarriedDeletes(ctx, c, { schema, table, info }, held);
      const readers: ReadState[] = [];
      let base = r;
      try {
        for (let attempt = 1; ; attempt++) {
          const { deletes: carriedFiles, emptied } = await carried.deleteFiles(added);
          try {
            const { snapshot } = await committed.transaction(
              async (tx) => {
                for (const f of chosen) if (!carried.ended.has(f.id)) await tx.removeDataFile(schema, table, f.id);
                for (const [i, spec] of added.entries()) {
                  if (emptied.has(i)) continue;
                  const id = await tx.addDataFile(schema, table, spec);
                  const d = carriedFiles.get(i);
                  if (d !== undefined) await tx.addDeleteFile(schema, table, { ...d, dataFileId: id });
                }
              },
              { message: `compact ${schema}.${table}: ${chosen.length} files into ${added.length - emptied.size}`, maintenance: true, basedOn: base.snapshot.id },
            );
            const kept = [...added.entries()].filter(([i]) => !emptied.has(i));
            return {
              snapshot,
              removed: { dataFiles: chosen.length, deleteFiles: deletes.filter((d) => ids.has(d.dataFileId)).length },
              added: kept.map(([, a]) => ({ path: a.path, recordCount: a.recordCount })),
              rows: kept.reduce((n, [i, a]) => n + a.recordCount - (carriedFiles.get(i)?.deleteCount ?? 0), 0),
            };
          } catch (e) {
            // Deletes from the files it rewrote committed meanwhile: carry them into the new files and commit on
            // the newer head, unless what happened cannot be carried (then the CONFLICT stands).
            if (!isStrataError(e, 'CONFLICT') || attempt >= MAX_CARRIES) throw e;
            const head = await ctx.reads.reader();
            readers.push(head);
            if (!((await carried.since(base, head, rewritten)) ?? 0)) throw e;
            base = head;
          }
        }
      } finally {
        for (const x of readers) await x.close();
      }
    });
  } finally {
    held.release();
    await r.close();
  }
}
