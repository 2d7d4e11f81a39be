// A table's size at a snapshot: what `strata info` and DuckLake's ducklake_table_info report. The table's
// stats row adds up its live files at the newest snapshot (verify holds it to that), so there it is one
// point read; at an older snapshot, or in a row written before delete files were counted, the files are listed.
import type { CatalogId, SnapshotId } from '../../keys/ids.js';
import type { ReadView } from '../kv/read-view.js';
import { headSnapshot, tableStats } from './catalog-queries.js';
import { dataFilesAt, deleteFilesAt } from './file-listing.js';
import type { TableTotals } from './records.js';

export async function tableTotalsAt(view: ReadView, at: SnapshotId, tableId: CatalogId): Promise<TableTotals> {
  if (at === (await headSnapshot(view)).begin) {
    const s = await tableStats(view, tableId);
    if (s?.dataFiles !== undefined && s.deletes !== undefined) {
      return { dataFiles: s.dataFiles, dataBytes: s.fileSizeBytes, deleteFiles: s.deletes.files, deleteBytes: s.deletes.bytes, rows: s.recordCount - s.deletes.rows };
    }
  }
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
