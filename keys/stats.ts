// Table statistics (ducklake_table_stats; the spaces of column statistics are laid out, not written yet):
// singletons keyed by table, overwritten by every commit that changes the table's files.
import type { CatalogId } from './ids.js';
import { encodeKey, type Key, keyPrefix } from './key-codec.js';
import { del, type Mutation, putRow } from './mutation.js';
import { Space } from './spaces.js';

export interface TableStatsRow {
  recordCount: number;
  nextRowId: number;
  fileSizeBytes: number;
}

export const EMPTY_TABLE_STATS: TableStatsRow = { recordCount: 0, nextRowId: 0, fileSizeBytes: 0 };

export const tableStatsKey = (tableId: CatalogId): Key => encodeKey(Space.TableStats, [tableId]);

export const putTableStats = (tableId: CatalogId, row: TableStatsRow): Mutation => putRow(tableStatsKey(tableId), row);

/** A table whose last version excision removed leaves no stats behind. */
export const excisedTableStats = (tableId: CatalogId): Mutation => del(tableStatsKey(tableId));

/** The prefix of one table's versions: excision asks whether any is left. */
export const tableVersionsPrefix = (tableId: CatalogId): Key => keyPrefix(Space.Table, [tableId]);
