// Which rows each snapshot of a range took away from a table and which it gave it, as sets of positions of
// its data files: what tableChanges reads (src/sql/row-changes.ts). A snapshot changes a data file's live
// rows when it adds or ends the file, or when the file's delete file changes — a new cumulative one, or one
// ended without a successor (a restore bringing rows back). Every kind of commit is one of these, so the
// rows come out right whatever made the change; pairing the rows by id (an update keeps it, a compaction or a
// restore moves a row under it) is the SQL's.
//
// But for one kind: a maintenance commit (a compaction) moves rows and changes none, and reading every row it
// moved twice to find that out would make a range that spans it cost what the table holds, not what changed.
// So a maintenance commit is taken at its word when what it took away and gave add up to as many rows; one
// that does not is read like any other (decision 0039).
import type { CatalogId, FileId, SnapshotId } from '../../keys/ids.js';
import type { ReadView } from '../kv/read-view.js';
import { snapshotChanges } from './catalog-queries.js';
import { fileVersions } from './history.js';
import type { DataFileInfo, DeleteFileInfo } from './records.js';

/** The rows of `file` at the positions `within` holds (null: every position) less those `without` holds. */
export interface RowEvent {
  snapshot: SnapshotId;
  /** Removed: live just before `snapshot` and not at it. Added: live at it and not just before. */
  side: 'removed' | 'added';
  file: DataFileInfo;
  within: DeleteFileInfo | null;
  without: DeleteFileInfo | null;
}

const liveAt = (f: { beginSnapshot: number; endSnapshot: number | null }, s: number) => f.beginSnapshot <= s && (f.endSnapshot === null || s < f.endSnapshot);

/** The row events of snapshots [from, to] of a table, in snapshot order. */
export async function rowEvents(view: ReadView, tableId: CatalogId, from: SnapshotId, to: SnapshotId): Promise<RowEvent[]> {
  const { data, deletes } = await fileVersions(view, tableId, from, to);
  const deletesOf = new Map<FileId, DeleteFileInfo[]>();
  for (const d of deletes) {
    const list = deletesOf.get(d.dataFileId);
    if (list === undefined) deletesOf.set(d.dataFileId, [d]);
    else list.push(d);
  }
  const events: RowEvent[] = [];
  for (const file of data) {
    const own = deletesOf.get(file.id) ?? [];
    const deleteAt = (s: number) => own.find((d) => liveAt(d, s)) ?? null;
    const touched = new Set([file.beginSnapshot, file.endSnapshot, ...own.flatMap((d) => [d.beginSnapshot, d.endSnapshot])]);
    for (const s of [...touched].filter((x): x is SnapshotId => x !== null && x >= from && x <= to)) {
      const before = liveAt(file, s - 1) ? { deletes: deleteAt(s - 1) } : undefined;
      const after = liveAt(file, s) ? { deletes: deleteAt(s) } : undefined;
      if (before !== undefined && after !== undefined && before.deletes?.id === after.deletes?.id) continue;
      // A row goes when it was live and is no more: its file ended, or its position joined the deletes.
      if (before !== undefined && (after === undefined || after.deletes !== null)) {
        events.push({ snapshot: s, side: 'removed', file, within: after?.deletes ?? null, without: before.deletes });
      }
      // A row comes when it is live and was not: its file is new, or its position left the deletes.
      if (after !== undefined && (before === undefined || before.deletes !== null)) {
        events.push({ snapshot: s, side: 'added', file, within: before?.deletes ?? null, without: after.deletes });
      }
    }
  }
  const moved = new Set<number>();
  for (const s of new Set(events.map((e) => e.snapshot))) {
    if ((await snapshotChanges(view, s))?.maintenance === true && rowsOf(events, s, 'removed') === rowsOf(events, s, 'added')) moved.add(s);
  }
  return events.filter((e) => !moved.has(e.snapshot)).sort((a, b) => a.snapshot - b.snapshot);
}

/**
 * How many rows a snapshot's events of one side hold, from the files' records: delete files hold distinct
 * positions inside their data file, each cumulative (decision 0040).
 */
function rowsOf(events: readonly RowEvent[], s: number, side: RowEvent['side']): number {
  let n = 0;
  for (const e of events) {
    if (e.snapshot === s && e.side === side) n += (e.within === null ? e.file.recordCount : e.within.deleteCount) - (e.without?.deleteCount ?? 0);
  }
  return n;
}
