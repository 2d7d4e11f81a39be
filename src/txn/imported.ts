// One snapshot of an imported lake as pending changes: the versions it begins and the versions it ends, with
// the ids the lake gave them. Applied by a transaction on a catalog the import created and nobody else writes
// (Catalog.importDuckLake), so the ids are the lake's and the plan (plan.ts) writes every index as a commit would.
import type { ColumnRow } from '../../keys/columns.js';
import type { DataFileRow } from '../../keys/data-files.js';
import type { DeleteFileRow } from '../../keys/delete-files.js';
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { CatalogId, ColumnId, FileId, SnapshotId } from '../../keys/ids.js';
import type { RelationKind, TableRow, ViewRow } from '../../keys/relations.js';
import type { SchemaRow } from '../../keys/schemas.js';
import * as q from '../read/catalog-queries.js';
import type { ReadView } from '../kv/read-view.js';
import { dataFile, deleteFile } from '../read/file-listing.js';
import type { Change, Row } from './change.js';
import { invalid, type PendingCatalog } from './pending.js';

/** What one snapshot begins (`next`) and ends (`ended`), per entity, by the lake's ids. */
export interface ImportedSnapshot {
  schemas: { id: CatalogId; next: Row<SchemaRow> | null }[];
  tables: { id: CatalogId; next: Row<TableRow> | null }[];
  views: { id: CatalogId; next: Row<ViewRow> | null }[];
  columns: { tableId: CatalogId; id: ColumnId; next: Row<ColumnRow> | null }[];
  dataFiles: { tableId: CatalogId; id: FileId; next: Row<DataFileRow> | null; stats?: ColumnStats[] }[];
  deleteFiles: { tableId: CatalogId; id: FileId; next: Row<DeleteFileRow> | null }[];
  /** The lake's counters after the snapshot: every id it holds is below them. */
  nextCatalogId: number;
  nextFileId: number;
  /** The tables its changes_made says a restore changed (restored_table, Strata's word): its plan says so again. */
  restoredTables: CatalogId[];
}

/**
 * Applies `s` to the transaction's pending state. An entity the snapshot both ends and begins is altered; one
 * it ends must be live at the base, one it begins must not be.
 */
export async function applyImported(p: PendingCatalog, s: ImportedSnapshot): Promise<void> {
  const live = (what: string, id: number, has: boolean, next: unknown) => {
    if (next === null && !has) throw invalid(`the lake ends ${what} ${id} at snapshot ${p.base + 1}, but it is not live at snapshot ${p.base}`);
  };
  const entities = async <T extends { end: SnapshotId | null }>(
    what: string,
    map: Map<CatalogId, Change<T>>,
    fetch: (view: ReadView, at: SnapshotId, id: CatalogId) => Promise<q.Version<T> | undefined>,
    list: readonly { id: CatalogId; next: Row<T> | null }[],
  ) => {
    for (const { id, next } of list) {
      const c = await p.load(map, id, fetch);
      live(what, id, c.base !== undefined, next);
      c.next = next;
      if (what !== 'schema') p.renamed(what as RelationKind, id);
    }
  };
  await entities('schema', p.schemas, q.schemaAt, s.schemas);
  await entities('table', p.tables, q.tableAt, s.tables);
  await entities('view', p.views, q.viewAt, s.views);
  for (const { tableId, id, next } of s.columns) {
    const cols = await p.loadColumns(tableId);
    const c = cols.changes.get(id);
    live(`column of table ${tableId}`, id, c !== undefined, next);
    if (c) c.next = next;
    else cols.changes.set(id, { base: undefined, next });
    cols.nextId = Math.max(cols.nextId, id + 1);
  }
  for (const { tableId, id, next, stats } of s.dataFiles) {
    if (next !== null) {
      p.dataFiles.set(id, { tableId, base: undefined, next });
      if (stats !== undefined && stats.length > 0) p.fileStats.set(id, stats);
      p.nextRowIds.set(tableId, Math.max(await p.nextRowId(tableId), next.rowIdStart + next.recordCount));
      continue;
    }
    const base = await dataFile(p.view, tableId, id);
    live(`data file of table ${tableId}`, id, base !== undefined && base.row.end === null, null);
    p.dataFiles.set(id, { tableId, base: base!, next: null });
  }
  for (const { tableId, id, next } of s.deleteFiles) {
    if (next !== null) {
      p.deleteFiles.set(id, { tableId, base: undefined, next });
      continue;
    }
    const base = await deleteFile(p.view, tableId, id);
    live(`delete file of table ${tableId}`, id, base !== undefined && base.row.end === null, null);
    p.deleteFiles.set(id, { tableId, base: base!, next: null });
  }
  p.raiseCounters(s.nextCatalogId, s.nextFileId);
  for (const t of s.restoredTables) p.restoredTables.add(t);
  p.keepEmptySnapshot = true;
}
