// Table statistics (ducklake_table_stats; the spaces of column statistics are laid out, not written yet):
// singletons keyed by table, overwritten by every commit that changes the table's files.
import type { CatalogId } from './ids.js';
import { encodeKey, type Key, keyPrefix } from './key-codec.js';
import { del, type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';
import type { Violation } from './violation.js';

export interface TableStatsRow {
  recordCount: number;
  nextRowId: number;
  fileSizeBytes: number;
  /**
   * How many data files are live: 0 lets a drop skip listing a table that has none (a cascade over
   * thousands of fresh tables). Absent in rows written before it was kept; such a table is listed.
   */
  dataFiles?: number;
  /**
   * How many of its data files were ever given an end (removed, compacted, restored away, dropped with the
   * table): 0 lets a listing skip the index of ends, a LevelDB iterator per table listed. Absent in rows
   * written before it was kept; for such a table the ends are read.
   */
  endedFiles?: number;
  /**
   * How many entries a listing at the newest snapshot reads past the cache: the files of the table's newest
   * base (data-files.ts) and the files added and ended since. Once it is more than twice the live files (and
   * more than a cached group holds), a commit writes a new base (src/read/file-listing.ts, rebaseDue). Absent
   * in rows written before it was kept and in a table's first life's: counted from dataFiles and endedFiles,
   * as if it had no base.
   */
  listed?: number;
  /**
   * The live delete files: how many, their bytes and the rows they delete — with the live data files, a table's
   * size at the newest snapshot without a listing (DuckLake's ducklake_table_info). Absent in rows written
   * before they were kept; for such a table the delete files are listed.
   */
  deletes?: DeleteTotals;
}

export interface DeleteTotals {
  files: number;
  bytes: number;
  rows: number;
}

export const NO_DELETES: DeleteTotals = { files: 0, bytes: 0, rows: 0 };

export const EMPTY_TABLE_STATS: TableStatsRow = { recordCount: 0, nextRowId: 0, fileSizeBytes: 0, dataFiles: 0, endedFiles: 0, deletes: NO_DELETES };

/**
 * The stats a table starts from when it is created — or created again under its id, as a catalog restore brings
 * a dropped table back: no live files yet, but the files its earlier life ended still counted as ended (a
 * listing at an older snapshot reads their ends) and its row ids still taken (no new file may reuse one).
 * `kept`: the stats its drop left, if any (undefined for an older row that kept no count of ended files).
 */
export function recreatedTableStats(kept: TableStatsRow | undefined): TableStatsRow {
  if (kept === undefined) return EMPTY_TABLE_STATS;
  const { endedFiles, ...rest } = { ...EMPTY_TABLE_STATS, nextRowId: kept.nextRowId, endedFiles: kept.endedFiles };
  return endedFiles === undefined ? rest : { ...rest, endedFiles };
}

/** What one commit did to a table's data files: live files gained (negative: lost), and files it ended. */
export interface TableStatsDelta {
  records: number;
  bytes: number;
  files: number;
  ended: number;
  /** Live delete files gained (negative: lost). */
  deletes: DeleteTotals;
}

/** A table's stats after a commit changed its live files by `d`. */
export function changedTableStats(base: TableStatsRow, d: TableStatsDelta, nextRowId: number): TableStatsRow {
  const stats: TableStatsRow = { recordCount: base.recordCount + d.records, nextRowId: Math.max(base.nextRowId, nextRowId), fileSizeBytes: base.fileSizeBytes + d.bytes };
  if (base.dataFiles !== undefined) stats.dataFiles = base.dataFiles + d.files;
  if (base.endedFiles !== undefined) stats.endedFiles = base.endedFiles + d.ended;
  const listed = listedBy(base);
  // A file added is a manifest entry to read, one ended an entry of the ends after the base.
  if (listed !== undefined) stats.listed = listed + d.files + 2 * d.ended;
  if (base.deletes !== undefined) stats.deletes = { files: base.deletes.files + d.deletes.files, bytes: base.deletes.bytes + d.deletes.bytes, rows: base.deletes.rows + d.deletes.rows };
  return stats;
}

/** What a listing at the newest snapshot reads past the cache (TableStatsRow.listed), or undefined when the stats cannot say. */
export function listedBy(s: TableStatsRow): number | undefined {
  if (s.listed !== undefined) return s.listed;
  // No base: every manifest entry ever written, and every end.
  return s.dataFiles === undefined || s.endedFiles === undefined ? undefined : s.dataFiles + 2 * s.endedFiles;
}

/** The stats of a table whose bases excision took: what a listing reads is counted again as if it had none. */
export function withoutBase(s: TableStatsRow): TableStatsRow {
  const { listed: _, ...rest } = s;
  return rest;
}

/**
 * A dropped table's stats: it keeps the ones it had (what DuckLake's table_stats showed last), except the
 * files its drop ended, which a listing at an older snapshot must still read the ends of.
 */
export function droppedTableStats(base: TableStatsRow, d: TableStatsDelta): TableStatsRow {
  return base.endedFiles === undefined || d.ended === 0 ? base : { ...base, endedFiles: base.endedFiles + d.ended };
}

export const tableStatsKey = (tableId: CatalogId): Key => encodeKey(Space.TableStats, [tableId]);

export const putTableStats = (tableId: CatalogId, row: TableStatsRow): Mutation => putRow(tableStatsKey(tableId), row);

/** A table whose last version excision removed leaves no stats behind. */
export const excisedTableStats = (tableId: CatalogId): Mutation => del(tableStatsKey(tableId));

/** The prefix of one table's versions: excision asks whether any is left. */
export const tableVersionsPrefix = (tableId: CatalogId): Key => keyPrefix(Space.Table, [tableId]);

/**
 * A live table's stats add up its live data files at the newest snapshot (count, records, bytes), and its next row
 * id is past every row id a file of it ever took: a new file must not reuse one. (A dropped table keeps the
 * stats it had, until excision removes them with its last version.)
 */
export function tableStatsProblems(
  stats: readonly { tableId: number; row: TableStatsRow; key: string }[],
  files: readonly { tableId: number; end: number | null; recordCount: number; fileSizeBytes: number; rowIdEnd: number }[],
  deleteFiles: readonly { tableId: number; end: number | null; deleteCount: number; fileSizeBytes: number }[],
  liveTables: ReadonlySet<number>,
): Violation[] {
  const none = () => ({ records: 0, bytes: 0, files: 0, ended: 0, rowIdEnd: 0 });
  const sums = new Map<number, ReturnType<typeof none>>();
  for (const f of files) {
    let s = sums.get(f.tableId);
    if (!s) sums.set(f.tableId, (s = none()));
    if (f.end === null) {
      s.records += f.recordCount;
      s.bytes += f.fileSizeBytes;
      s.files++;
    } else s.ended++;
    s.rowIdEnd = Math.max(s.rowIdEnd, f.rowIdEnd);
  }
  const deletes = new Map<number, DeleteTotals>();
  for (const d of deleteFiles) {
    if (d.end !== null) continue;
    const t = deletes.get(d.tableId) ?? { ...NO_DELETES };
    deletes.set(d.tableId, { files: t.files + 1, bytes: t.bytes + d.fileSizeBytes, rows: t.rows + d.deleteCount });
  }
  const out: Violation[] = [];
  for (const { tableId, row, key } of stats) {
    const s = sums.get(tableId) ?? none();
    // Excision removes ended files, so fewer may be left than were counted; more would be listed as live.
    // Stryker disable next-line ConditionalExpression: `row.endedFiles !== undefined` narrows the type; a count compared with undefined is never greater
    if (row.endedFiles !== undefined && s.ended > row.endedFiles) {
      out.push({
        invariant: 'table-stats-add-up',
        key,
        message: `table ${tableId}'s stats say ${row.endedFiles} of its data files were ever ended, but ${s.ended} have an end: listings would skip their ends`,
      });
    }
    if (!liveTables.has(tableId)) continue;
    if (row.recordCount !== s.records || row.fileSizeBytes !== s.bytes || (row.dataFiles ?? s.files) !== s.files) {
      out.push({
        invariant: 'table-stats-add-up',
        key,
        message: `table ${tableId}'s stats say ${row.dataFiles ?? 'some'} files with ${row.recordCount} records in ${row.fileSizeBytes} bytes; its live files are ${s.files} with ${s.records} in ${s.bytes}`,
      });
    }
    const d = deletes.get(tableId) ?? NO_DELETES;
    if (row.deletes !== undefined && (row.deletes.files !== d.files || row.deletes.bytes !== d.bytes || row.deletes.rows !== d.rows)) {
      out.push({
        invariant: 'table-stats-add-up',
        key,
        message: `table ${tableId}'s stats say ${row.deletes.files} delete files deleting ${row.deletes.rows} rows in ${row.deletes.bytes} bytes; its live delete files are ${d.files} deleting ${d.rows} in ${d.bytes}`,
      });
    }
    if (row.nextRowId < s.rowIdEnd) out.push({ invariant: 'table-stats-add-up', key, message: `table ${tableId}'s next row id is ${row.nextRowId}, but its files took row ids up to ${s.rowIdEnd - 1}` });
  }
  return out;
}
