// A table's size at a snapshot: what `strata info` and DuckLake's ducklake_table_info report. The table's
// stats row adds up its live files at the newest snapshot (verify holds it to that), so there it is one
// point read; at an older snapshot, or in a row written before delete files were counted, the files are listed.
import type { CatalogId, SnapshotId } from '../../keys/ids.js';
import type { TableStatsRow } from '../../keys/stats.js';
import type { ReadView } from '../kv/read-view.js';
import { headSnapshot, relationsAt, schemasAt, tableStats, tableStatsOf } from './catalog-queries.js';
import { dataFilesAt, deleteFilesAt } from './file-listing.js';
import type { CatalogTotals, TableTotals } from './records.js';

export async function tableTotalsAt(view: ReadView, at: SnapshotId, tableId: CatalogId): Promise<TableTotals> {
  const stats = (await isHead(view, at)) ? fromStats(await tableStats(view, tableId)) : undefined;
  return stats ?? listedTotals(view, at, tableId);
}

/**
 * Every live schema, table and view at `at`, and the totals of its tables added up: one listing of each
 * schema's relations and, at the newest snapshot, one multi-get of the tables' stats rows (`strata info`
 * on a thousand tables read a thousand names and rows one at a time).
 */
export async function catalogTotalsAt(view: ReadView, at: SnapshotId): Promise<CatalogTotals> {
  const sum: CatalogTotals = { schemas: 0, tables: 0, views: 0, dataFiles: 0, dataBytes: 0, deleteFiles: 0, deleteBytes: 0, rows: 0 };
  const tableIds: CatalogId[] = [];
  for await (const schema of schemasAt(view, at)) {
    sum.schemas++;
    for await (const r of relationsAt(view, at, schema.id)) {
      if (r.kind === 'table') tableIds.push(r.id);
      else sum.views++;
    }
  }
  sum.tables = tableIds.length;
  const stats = (await isHead(view, at)) ? await tableStatsOf(view, tableIds) : [];
  for (const [i, id] of tableIds.entries()) {
    const t = fromStats(stats[i]) ?? (await listedTotals(view, at, id));
    sum.dataFiles += t.dataFiles;
    sum.dataBytes += t.dataBytes;
    sum.deleteFiles += t.deleteFiles;
    sum.deleteBytes += t.deleteBytes;
    sum.rows += t.rows;
  }
  return sum;
}

async function isHead(view: ReadView, at: SnapshotId): Promise<boolean> {
  return at === (await headSnapshot(view)).begin;
}

/** The totals a stats row holds, if it counts the table's delete files (a row written before they were counted does not). */
function fromStats(s: TableStatsRow | undefined): TableTotals | undefined {
  if (s?.dataFiles === undefined || s.deletes === undefined) return undefined;
  return { dataFiles: s.dataFiles, dataBytes: s.fileSizeBytes, deleteFiles: s.deletes.files, deleteBytes: s.deletes.bytes, rows: s.recordCount - s.deletes.rows };
}

async function listedTotals(view: ReadView, at: SnapshotId, tableId: CatalogId): Promise<TableTotals> {
  const t: TableTotals = { dataFiles: 0, dataBytes: 0, deleteFiles: 0, deleteBytes: 0, rows: 0 };
  for await (const batch of dataFilesAt(view, at, tableId)) {
    for (const { row } of batch) {
      t.dataFiles++;
      t.dataBytes += row.fileSizeBytes;
      t.rows += row.recordCount;
    }
  }
  for await (const batch of deleteFilesAt(view, at, tableId)) {
    for (const { row } of batch) {
      t.deleteFiles++;
      t.deleteBytes += row.fileSizeBytes;
      t.rows -= row.deleteCount;
    }
  }
  return t;
}
