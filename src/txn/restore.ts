// Restores as pending changes: history only moves forward, so an old state comes back as new versions in an
// ordinary commit (docs/decisions/0001). Files that were there at the old snapshot return under new file ids
// (a file row is written once) pointing at the same objects and keeping their row ids.
import type { ColumnRow } from '../../keys/columns.js';
import type { DataFileRow } from '../../keys/data-files.js';
import type { DeleteFileRow } from '../../keys/delete-files.js';
import type { CatalogId, FileId, SnapshotId } from '../../keys/ids.js';
import { append } from '../../keys/mutation.js';
import { isVisible } from '../../keys/visibility.js';
import { checkCount } from '../arguments.js';
import { StrataError } from '../errors.js';
import { quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { type DataFileVersion, dataFilesAt, deleteFilesAt, type DeleteFileVersion } from '../read/file-listing.js';
import { type Change, type Row, unchanged } from './change.js';
import type { EntityRows, FileChange, PendingCatalog } from './pending.js';
import { notFound } from './refusals.js';

/**
 * Makes the table's columns and files what they were at snapshot `at`: the table keeps its current name.
 */
export async function restoreTable(p: PendingCatalog, schema: string, table: string, at: unknown): Promise<void> {
  const snapshot = await requireOlderSnapshot(p, at);
  const t = await p.requireTable(schema, table);
  if ((await q.tableAt(p.view, snapshot, t.id)) === undefined) {
    throw notFound(`table ${quote(schema, table)} (id ${t.id}) did not exist at snapshot ${snapshot}; nothing to restore`);
  }
  (await prepareRestoreContents(p, t.id, snapshot))();
}

/**
 * Makes the whole catalog what it was at snapshot `at`: schemas, tables and views that existed then come
 * back (with their ids), those created since are dropped, and every table's columns and files are restored.
 * Everything is loaded before anything changes, so a failure leaves the transaction as it was.
 */
export async function restoreCatalog(p: PendingCatalog, at: unknown): Promise<void> {
  const snapshot = await requireOlderSnapshot(p, at);
  const steps: (() => void)[] = [];
  const restoreAll = async <K extends q.EntityKind>(kind: K, fetch: (view: ReadView, s: SnapshotId, id: CatalogId) => Promise<q.Version<EntityRows[K]> | undefined>) => {
    for (const id of await idsAtEither(p, kind, snapshot)) {
      await p.load(kind, id);
      const old = unchanged(await fetch(p.view, snapshot, id));
      if (kind === 'table') steps.push(old.next === null ? await p.prepareDropTable(id) : await prepareRestoreContents(p, id, snapshot));
      steps.push(() => p.replaceEntity(kind, id, old.next));
    }
  };
  await restoreAll('schema', q.schemaAt);
  await restoreAll('table', q.tableAt);
  await restoreAll('view', q.viewAt);
  for (const apply of steps) apply();
}

async function requireOlderSnapshot(p: PendingCatalog, at: unknown): Promise<SnapshotId> {
  const id = checkCount('snapshot', at) as SnapshotId;
  if (id <= p.base) await q.assertRetained(p.view, id);
  if (id > p.base || (await q.snapshotRow(p.view, id)) === undefined) {
    throw new StrataError('SNAPSHOT_NOT_FOUND', `snapshot ${id} does not exist (the newest is ${p.base}); restore from an existing one`, {
      snapshot: id,
    });
  }
  return id;
}

/** Ids of the entities of one kind visible at `at` or now (the base), plus those created in this transaction. */
async function idsAtEither(p: PendingCatalog, kind: q.EntityKind, at: SnapshotId): Promise<Set<CatalogId>> {
  const ids = new Set<CatalogId>();
  for await (const batch of q.entityVersions(p.view, kind)) {
    for (const v of batch) if (isVisible(v.begin, v.row.end, at) || isVisible(v.begin, v.row.end, p.base)) ids.add(v.id);
  }
  const pending = kind === 'schema' ? p.schemas : kind === 'table' ? p.tables : p.views;
  for (const [id, c] of pending as ReadonlyMap<CatalogId, Change<unknown>>) if (c.base === undefined) ids.add(id);
  return ids;
}

/** Loads what restoring a table's columns and files to `at` needs; returns the change to apply. */
async function prepareRestoreContents(p: PendingCatalog, tableId: CatalogId, at: SnapshotId): Promise<() => void> {
  const cols = await p.loadColumns(tableId);
  const oldCols = await q.columnsOf(p.view, tableId, at);
  await p.loadDataFiles(tableId);
  await p.loadDeleteFiles(tableId);
  const oldFiles: DataFileVersion[] = [];
  for await (const batch of dataFilesAt(p.view, at, tableId)) append(oldFiles, batch);
  const oldDeletes: DeleteFileVersion[] = [];
  for await (const batch of deleteFilesAt(p.view, at, tableId)) append(oldDeletes, batch);
  // A file that comes back under a new id keeps what its statistics and its mapping said: the file is the same object.
  const oldStats = await q.fileColumnStats(p.view, tableId, oldFiles.map((f) => ({ id: f.id, begin: f.begin })));
  const oldMappings = await q.nameMappings(p.view, tableId, oldFiles.map((f) => ({ id: f.id, begin: f.begin, mappingId: f.row.mappingId ?? null })));
  // Read for the files that come back (addDataFile): their rows are below it, and keep their ids.
  await p.nextRowId(tableId);
  // Enough ids for every file that may come back; those that are there already need none.
  await p.reserve('file', oldFiles.length + oldDeletes.length);
  return () => {
    const wanted = new Map(oldCols.map((v) => [v.id, unchanged<ColumnRow>(v).next!]));
    for (const id of cols.changes.keys()) if (!wanted.has(id)) p.replaceColumn(tableId, id, null);
    for (const [id, row] of wanted) p.replaceColumn(tableId, id, row);
    // Files: retire what was not there at `at`; bring back what was, under new file ids (a file row is
    // written once) pointing at the same objects and keeping their row ids. A file counts as "there" by
    // what it is (path and rows), so restoring twice changes nothing the second time.
    const dataKey = (r: DataFileRow | Row<DataFileRow>) => `${r.path}\0${r.rowIdStart}\0${r.recordCount}`;
    const deleteKey = (r: DeleteFileRow | Row<DeleteFileRow>, dataPath: string) => `${r.path}\0${r.deleteCount}\0${dataPath}`;
    // A file this transaction registered as ending at its commit (a delete of every row) was never live.
    const liveNow = <T>(m: ReadonlyMap<FileId, FileChange<T>>) => [...m].filter(([, c]) => c.tableId === tableId && c.next !== null && c.endsAtCommit !== true);
    const dataNow = new Map(liveNow(p.dataFiles).map(([id, c]) => [dataKey(c.next!), id]));
    const pathOfNow = new Map(liveNow(p.dataFiles).map(([id, c]) => [id, c.next!.path]));
    const pathOfOld = new Map(oldFiles.map((f) => [f.id, f.row.path]));
    const deletesNow = new Map(liveNow(p.deleteFiles).map(([id, c]) => [deleteKey(c.next!, pathOfNow.get(c.next!.dataFileId) ?? ''), id]));
    const fileIds = new Map<FileId, FileId>(); // id at `at` → id now
    for (const f of oldFiles) {
      const now = dataNow.get(dataKey(f.row));
      if (now !== undefined) {
        fileIds.set(f.id, now);
        dataNow.delete(dataKey(f.row));
      } else {
        const id = p.takeFileId();
        fileIds.set(f.id, id);
        const stats = oldStats.get(f.id);
        const mapping = oldMappings.get(f.id);
        p.addDataFile(id, tableId, unchanged<DataFileRow>(f).next!, { ...(stats === undefined ? {} : { stats }), ...(mapping === undefined ? {} : { mapping }) });
      }
    }
    for (const d of oldDeletes) {
      const k = deleteKey(d.row, pathOfOld.get(d.row.dataFileId) ?? '');
      if (deletesNow.delete(k)) continue;
      const row = unchanged<DeleteFileRow>(d).next!;
      p.addDeleteFile(p.takeFileId(), tableId, { ...row, dataFileId: fileIds.get(row.dataFileId) ?? row.dataFileId });
    }
    p.endFiles('data', dataNow.values());
    p.endFiles('delete', deletesNow.values());
    p.restored(tableId);
  };
}
