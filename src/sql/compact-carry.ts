// What a compaction does when deletes from the files it rewrites commit while it works (decision 0044): the
// rows they took are found by their row ids — which every row carries in the compaction's new files — and
// deleted there too, so the compaction commits on the newer head instead of failing under writers, and no
// deleted row comes back. A rewritten file gone meanwhile gives up all its rows to the new files' delete
// files and is not removed again. Row ids are held in a temporary DuckDB table of the compaction's connection, never
// in JavaScript arrays.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FileId } from '../../keys/ids.js';
import type { ReadState } from '../read/read-state.js';
import type { DataFileInfo, DeleteFileInfo, TableInfo } from '../read/records.js';
import { run } from './engine.js';
import { recordedFile } from './local-files.js';
import type { PlaneContext } from './query.js';
import { ident, literal } from './sql-text.js';
import type { StatementFiles } from './statement-files.js';
import { POSITION, tableScan } from './table-scan.js';
import { type StoredDeleteFile, storeDeleteFile, type WrittenSpec } from './write-files.js';
import { randomHex } from '../random.js';

const [POS, ROWID] = [ident(POSITION[1]), ident(POSITION[2])];

/** The row ids a compaction must carry into its new files, in a temporary table of its connection. */
export class CarriedDeletes {
  private readonly table = `__strata_gone_${randomHex(6)}`;
  private made = false;

  constructor(
    private readonly ctx: PlaneContext,
    private readonly c: DuckDBConnection,
    private readonly target: { schema: string; table: string; info: TableInfo },
    private readonly held: StatementFiles,
  ) {}

  /** Rewritten files that are gone at the head it last looked at: their rows are carried, and they are not removed again. */
  readonly ended = new Set<FileId>();

  /**
   * Adds the rows deleted from the rewritten files `rewritten` (with their local copies) between snapshot
   * `from` and `to`: a file's new delete positions, or all of a file that is gone (a DELETE of all its rows;
   * or a restore or another compaction, whose files then hold its live rows under the same ids). How many
   * rows were found; undefined when a rewritten file got rows back (a restore): the new files lack them.
   */
  async since(from: ReadState, to: ReadState, rewritten: readonly (DataFileInfo & { local: string })[]): Promise<number | undefined> {
    const { schema, table } = this.target;
    const live = new Set((await to.dataFiles(schema, table)).map((f) => f.id));
    const before = await this.deletesOf(from);
    const after = await this.deletesOf(to);
    if (!this.made) {
      await run(() => this.c.run(`CREATE TEMP TABLE ${this.table} (rowid BIGINT)`));
      this.made = true;
    }
    const had = await this.count(`SELECT count(*) FROM ${this.table}`);
    for (const f of rewritten) {
      if (this.ended.has(f.id)) continue;
      const scan = tableScan({ columns: this.target.info.columns, files: [{ local: f.local, rowIdStart: f.rowIdStart }], deletes: [] }, true);
      const [was, now] = [before.get(f.id), after.get(f.id)];
      const positions = (d: string) => `SELECT pos FROM read_parquet(${literal(d)})`;
      if (!live.has(f.id)) {
        // Only the rows it still had at `from`: one deleted before then is not in the new files, and its id may
        // be (an UPDATE keeps a row's id, and its new version can be among the files this compaction read).
        this.ended.add(f.id);
        const [deleted] = was === undefined ? [] : await this.held.hold([recordedFile(this.ctx.dataPath, was)]);
        const kept = deleted === undefined ? '' : ` WHERE ${POS} NOT IN (${positions(deleted)})`;
        await run(() => this.c.run(`INSERT INTO ${this.table} SELECT ${ROWID} FROM (${scan})${kept}`));
        continue;
      }
      if (now?.id === was?.id) continue;
      if (now === undefined) return undefined;
      const local = await this.held.hold([recordedFile(this.ctx.dataPath, now), ...(was === undefined ? [] : [recordedFile(this.ctx.dataPath, was)])]);
      // A delete file that lost positions brought rows back: they are not in the new files.
      if (was !== undefined && (await this.count(`SELECT count(*) FROM (${positions(local[1]!)} EXCEPT ${positions(local[0]!)})`)) > 0) return undefined;
      const gone = was === undefined ? positions(local[0]!) : `${positions(local[0]!)} EXCEPT ${positions(local[1]!)}`;
      await run(() => this.c.run(`INSERT INTO ${this.table} SELECT ${ROWID} FROM (${scan}) WHERE ${POS} IN (${gone})`));
    }
    return (await this.count(`SELECT count(*) FROM ${this.table}`)) - had;
  }

  /**
   * The delete file each new file needs for the rows carried so far (by index into `added`), and the new
   * files all of whose rows went: those are not registered at all.
   */
  async deleteFiles(added: readonly WrittenSpec[]): Promise<{ deletes: Map<number, StoredDeleteFile>; emptied: Set<number> }> {
    const deletes = new Map<number, StoredDeleteFile>();
    const emptied = new Set<number>();
    if (!this.made) return { deletes, emptied };
    const local = await this.held.hold(added.map((a) => recordedFile(this.ctx.dataPath, { ...a, contentCrc32: a.contentCrc32 ?? null })));
    for (const [i, a] of added.entries()) {
      const scan = tableScan({ columns: this.target.info.columns, files: [{ local: local[i]!, rowIdStart: 0 }], deletes: [] }, true);
      const positions = `SELECT n.${POS} AS pos FROM (${scan}) AS n SEMI JOIN ${this.table} AS g ON g.rowid = n.${ROWID}`;
      const count = await this.count(`SELECT count(*) FROM (${positions})`);
      if (count === a.recordCount) emptied.add(i);
      else if (count > 0) deletes.set(i, await storeDeleteFile(this.ctx, this.c, this.target, a, positions));
    }
    return { deletes, emptied };
  }

  private async deletesOf(r: ReadState): Promise<Map<FileId, DeleteFileInfo>> {
    return new Map((await r.deleteFiles(this.target.schema, this.target.table)).map((d) => [d.dataFileId, d]));
  }

  private async count(sql: string): Promise<number> {
    return Number((await run(() => this.c.runAndReadAll(sql))).getRows()[0]![0]);
  }
}
