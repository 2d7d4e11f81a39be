// What a table's Iceberg metadata at a snapshot is made of, before anything is written: its snapshots, the
// schema of each column state, and the name of every object the metadata names. Objects are named for what
// they hold (a manifest for its files and schema, a list for its manifests), so the plan alone says which
// objects a retained snapshot needs: serving writes them, GC keeps them (named-objects.ts).
import type { CatalogId, SnapshotId } from '../../keys/ids.js';
import { ICEBERG_PREFIX } from '../commit/open.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import type { ColumnVersion } from '../read/catalog-queries.js';
import { fileVersions } from '../read/history.js';
import { columnTree } from '../read/reader.js';
import type { DataFileInfo, DeleteFileInfo } from '../read/records.js';
import type { ObjectStore } from '../store/object-store.js';
import { digest } from './object-names.js';
import { changePoints, type FileVersion, type ManifestKey, manifestFiles, type PlannedSnapshot, planSnapshots } from './table-snapshots.js';
import { type IcebergSchema, icebergSchema } from './types.js';
import { nodeCrypto } from '../on-first-use.js';

export interface Tag {
  name: string;
  snapshot: number;
}

export interface TablePlan {
  /** The prefix of the table's objects: `iceberg/<where the store is>/<table uuid>/`. */
  base: string;
  data: DataFileInfo[];
  deletes: DeleteFileInfo[];
  snapshots: PlannedSnapshot[];
  facts: Map<number, { time: number; maintenance: boolean }>;
  versions: ColumnVersion[];
  schemas: Map<number, IcebergSchema>;
  /** The schema of the table's columns at snapshot `s`. */
  schemaAt(s: number): IcebergSchema;
  /** The files a manifest lists. */
  members(key: ManifestKey): FileVersion[];
  /** Every manifest the snapshots name, by `manifestName`, with the prefix of the object that holds it (object-names.ts). */
  manifests: Map<string, { key: ManifestKey; prefix: string }>;
  /** The prefix of each snapshot's manifest list. */
  lists: Map<number, string>;
  /** The prefix of the Iceberg copy of a delete file. */
  deleteCopy(d: DeleteFileInfo): string;
}

/**
 * The plan of table `tableId` at snapshot `at`, with the retain-from horizon `retainFrom` and the tags at or
 * below `at`. `name` is the table as messages name it.
 */
export async function planTable(view: ReadView, store: ObjectStore, name: string, tableId: CatalogId, at: SnapshotId, retainFrom: number, tags: readonly Tag[]): Promise<TablePlan> {
  const table = (await q.tableAt(view, at, tableId))!;
  const created = (await q.tableCreation(view, tableId)) ?? 0;
  const from = Math.max(retainFrom, created) as SnapshotId;
  // A tag below the horizon still reads in Strata, so it is an Iceberg snapshot too, at the tag's own id.
  const pinned = tags.map((t) => t.snapshot).filter((t) => t < from && t >= created);
  const { data, deletes } = await fileVersions(view, tableId, 1 as SnapshotId, at);
  const dataVersions = data.map((f) => ({ id: f.id, records: f.recordCount, size: f.fileSizeBytes, begin: f.beginSnapshot, end: f.endSnapshot }));
  const deleteVersions = deletes.map((f) => ({ id: f.id, records: f.deleteCount, size: f.fileSizeBytes, begin: f.beginSnapshot, end: f.endSnapshot }));
  const facts = new Map<number, { time: number; maintenance: boolean }>();
  for (const p of [...pinned, ...changePoints(dataVersions, deleteVersions, from, at)]) {
    const row = (await q.snapshotRow(view, p as SnapshotId))!;
    facts.set(p, { time: row.time, maintenance: (await q.snapshotChanges(view, p as SnapshotId))?.maintenance === true });
  }
  const snapshots = planSnapshots(dataVersions, deleteVersions, from, at, (id) => facts.get(id)!, pinned);
  const versions = await q.columnsOf(view, tableId, undefined);

  // One schema per state the table's columns went through, its id the snapshot that made that state: the
  // catalog's schema version there would need that snapshot's row, which excision may have removed.
  const schemas = new Map<number, IcebergSchema>();
  const columnChanges = [...new Set(versions.flatMap((v) => [v.begin as number, ...(v.row.end === null ? [] : [v.row.end as number])]))].sort((a, b) => a - b);
  const schemaAt = (s: number): IcebergSchema => {
    const changed = columnChanges.filter((c) => c <= s).at(-1)!;
    let schema = schemas.get(changed);
    if (schema === undefined) {
      const visible = versions.filter((v) => v.begin <= changed && (v.row.end === null || changed < v.row.end));
      schemas.set(changed, (schema = icebergSchema(name, changed, columnTree(visible, null))));
    }
    return schema;
  };
  schemaAt(at);

  const byGroup = { data: groupFiles(dataVersions), deletes: groupFiles(deleteVersions) };
  const listedBy = new Map<string, FileVersion[]>();
  const members = (key: ManifestKey): FileVersion[] => {
    const n = manifestName(key);
    let files = listedBy.get(n);
    if (files === undefined) listedBy.set(n, (files = manifestFiles(byGroup[key.content].get(key.group) ?? [], key)));
    return files;
  };

  // A manifest's object is named for what it holds (the files and the schema), not only its group and cut:
  // once excision removed an ended file's row, the same group and cut describe fewer files, and the object
  // written before must not serve. A list's, for the manifests it names.
  const base = objectsPrefix(store, table.row.uuid);
  const manifests = new Map<string, { key: ManifestKey; prefix: string }>();
  const lists = new Map<number, string>();
  for (const p of snapshots) {
    for (const key of p.manifests) {
      const n = manifestName(key);
      if (!manifests.has(n)) manifests.set(n, { key, prefix: `${base}manifests/${n}-${digest([schemaAt(Math.max(key.group, key.cut)), members(key).map((f) => f.id)])}` });
    }
    lists.set(p.id, `${base}lists/snap-${p.id}-${digest([p.parent, p.manifests.map((k) => manifests.get(manifestName(k))!.prefix)])}`);
  }
  return { base, data, deletes, snapshots, facts, versions, schemas, schemaAt, members, manifests, lists, deleteCopy: (d) => `${base}deletes/${d.id}` };
}

export const manifestName = (key: ManifestKey) => `${key.content}-${key.group}-${key.cut}`;


/** A prefix per place the store is (manifests hold full URIs, which change if the lake moves): `iceberg/<hash>/`. */
export const locationPrefix = (store: ObjectStore) => `${ICEBERG_PREFIX}${nodeCrypto().createHash('sha256').update(store.url('iceberg')).digest('hex').slice(0, 12)}/`;

/** A prefix per table, under its location's. */
const objectsPrefix = (store: ObjectStore, uuid: string) => `${locationPrefix(store)}${uuid}/`;

/** The files of each commit group (the snapshot that added them): a manifest's files are some of one group's. */
function groupFiles(files: readonly FileVersion[]): Map<number, FileVersion[]> {
  const out = new Map<number, FileVersion[]>();
  for (const f of files) {
    const g = out.get(f.begin);
    if (g === undefined) out.set(f.begin, [f]);
    else g.push(f);
  }
  return out;
}
