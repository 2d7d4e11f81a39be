// Turns a sealed transaction into the key/value mutations of one log entry, and writes DuckLake's
// snapshot-changes record in one place. New versions get begin = the new snapshot; replaced versions keep
// their key and get end = the new snapshot; index entries change in the same batch as what they index.
import { type CatalogId, type FileId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { encodeKey, type Field } from '../../keys/key-codec.js';
import type {
  DataFileEndRow,
  DataFileManifestRow,
  DeleteFileRow,
  ManifestFile,
  FilePathRow,
  RelationKind,
  RelationNameIndexRow,
  SchemaNameIndexRow,
  SchemaRow,
  SnapshotChangesRow,
  SnapshotRow,
  TableRow,
  TableStatsRow,
  ViewRow,
} from '../../keys/rows.js';
import { SystemKey, Tag } from '../../keys/tags.js';
import { encodeValue } from '../../keys/value-codec.js';
import { endIndexKey } from '../../keys/end-index.js';
import { manifestFile } from '../../keys/manifest.js';
import type { Mutation } from '../kv/kv-store.js';
import type { ReadSource } from '../read/history.js';
import { quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { type Change, type ChangeKind, classify } from './change.js';
import type { FileChange, PendingState } from './transaction.js';

export interface CommitMeta {
  author?: string;
  message?: string;
  extraInfo?: string;
  /** Compaction, stats refresh and the like: "previous" skips these commits. */
  maintenance?: boolean;
  /** The table snapshots the commit was computed from: `catalog.lineage(snapshot)` returns them. */
  readSources?: ReadSource[];
}

export interface Plan {
  mutations: Mutation[];
  /** The snapshot the entry creates, or null when the net effect on the catalog is empty. */
  snapshot: { id: SnapshotId; row: SnapshotRow; changes: string[] } | null;
}

const put = (tag: Tag, fields: readonly Field[], begin: number | undefined, value: unknown): Mutation => ({
  type: 'put',
  key: encodeKey(tag, fields, begin),
  value: encodeValue(value),
});

/**
 * A version's end: its row gets `end`, and the end index learns of it in the same batch (with the object
 * path of a file row, which excision needs without reading the row).
 */
function ended(tag: Tag, fields: readonly Field[], begin: number, row: object, at: SnapshotId): Mutation[] {
  const key = encodeKey(tag, fields, begin);
  const isFile = tag === Tag.DataFile || tag === Tag.DeleteFile;
  const out: Mutation[] = [
    { type: 'put', key, value: encodeValue({ ...row, end: at }) },
    { type: 'put', key: endIndexKey(at, key), value: isFile ? encodeValue({ path: (row as { path: string }).path }) : EMPTY },
  ];
  if (tag === Tag.DataFile) out.push(put(Tag.DataFileEndIndex, fields, undefined, { end: at } satisfies DataFileEndRow));
  return out;
}

const EMPTY = encodeValue({});

/** The mutations that take one entity from its base version to its next one. */
function versionMutations<T>(tag: Tag, fields: readonly Field[], c: Change<T>, at: SnapshotId, kind: ChangeKind): Mutation[] {
  const out: Mutation[] = [];
  if (c.base && (kind === 'dropped' || kind === 'altered')) out.push(...ended(tag, fields, c.base.begin, c.base.row as object, at));
  if (c.next && (kind === 'created' || kind === 'altered')) out.push(put(tag, fields, at, { ...c.next, end: null }));
  return out;
}

export async function planCommit(
  view: ReadView,
  state: PendingState,
  head: SnapshotRow,
  meta: CommitMeta,
  time: number,
): Promise<Plan> {
  const at = snapshotId(state.base + 1);
  const mutations: Mutation[] = [];
  const created: string[] = [];
  const dropped: string[] = [];
  const droppedSchemas: string[] = [];
  const altered = new Set<CatalogId>();
  let schemaChanged = false;

  // Name index entries follow the (parent, name) of the rows they index.
  const endIndexEntry = async (tag: Tag, fields: readonly Field[]) => {
    const old = await q.versionAt<SchemaNameIndexRow | RelationNameIndexRow>(view, tag, fields, state.base);
    if (old) mutations.push(...ended(tag, fields, old.begin, old.row, at));
  };
  const startIndexEntry = (tag: Tag, fields: readonly Field[], value: SchemaNameIndexRow | RelationNameIndexRow) =>
    mutations.push(put(tag, fields, at, value));

  const schemaName = async (id: CatalogId): Promise<string> =>
    state.schemas.get(id)?.next?.name ?? (await q.schemaAt(view, state.base, id))?.row.name ?? String(id);

  for (const [id, c] of state.schemas) {
    const kind = classify<SchemaRow>(c);
    if (kind === 'none') continue;
    schemaChanged = true;
    mutations.push(...versionMutations(Tag.Schema, [id], c, at, kind));
    if (c.base?.row.name !== c.next?.name) {
      if (c.base) await endIndexEntry(Tag.SchemaNameIndex, [c.base.row.name]);
      if (c.next) startIndexEntry(Tag.SchemaNameIndex, [c.next.name], { schemaId: id, end: null });
    }
    if (kind === 'created') created.push(`created_schema:${quote(c.next!.name)}`);
    if (kind === 'dropped') droppedSchemas.push(`dropped_schema:${id}`);
  }

  const relations: [RelationKind, Tag, ReadonlyMap<CatalogId, Change<TableRow | ViewRow>>][] = [
    ['table', Tag.Table, state.tables],
    ['view', Tag.View, state.views],
  ];
  for (const [relKind, tag, map] of relations) {
    for (const [id, c] of map) {
      const kind = classify<TableRow | ViewRow>(c);
      if (kind === 'none') continue;
      schemaChanged = true;
      mutations.push(...versionMutations(tag, [id], c, at, kind));
      const from = c.base && { schemaId: c.base.row.schemaId, name: c.base.row.name };
      const to = c.next && { schemaId: c.next.schemaId, name: c.next.name };
      if (from?.schemaId !== to?.schemaId || from?.name !== to?.name) {
        if (from) await endIndexEntry(Tag.RelationNameIndex, [from.schemaId, from.name]);
        if (to) startIndexEntry(Tag.RelationNameIndex, [to.schemaId, to.name], { kind: relKind, id, end: null });
      }
      if (kind === 'created') created.push(`created_${relKind}:${quote(await schemaName(c.next!.schemaId), c.next!.name)}`);
      if (kind === 'dropped') dropped.push(`dropped_${relKind}:${id}`);
      if (kind === 'altered') altered.add(id);
      if (kind === 'created' && relKind === 'table') {
        const stats: TableStatsRow = { recordCount: 0, nextRowId: 0, fileSizeBytes: 0 };
        mutations.push(put(Tag.TableStats, [id], undefined, stats));
      }
    }
  }

  for (const [tableId, cols] of state.columns) {
    const table = state.tables.get(tableId);
    const tableKind = table ? classify(table) : 'none';
    for (const [colId, c] of cols.changes) {
      const kind = classify(c);
      if (kind === 'none') continue;
      schemaChanged = true;
      mutations.push(...versionMutations(Tag.Column, [tableId, colId], c, at, kind));
      if (tableKind === 'none' || tableKind === 'altered') altered.add(tableId);
    }
  }

  // Files: what each table gained and lost, for changes_made and the table's stats.
  const inserted = new Set<CatalogId>();
  const deleted = new Set<CatalogId>();
  const statsDelta = new Map<CatalogId, { records: number; bytes: number }>();
  const delta = (tableId: CatalogId) => {
    let d = statsDelta.get(tableId);
    if (!d) statsDelta.set(tableId, (d = { records: 0, bytes: 0 }));
    return d;
  };
  const tableGone = (tableId: CatalogId) => state.tables.get(tableId)?.next === null;
  const newPaths: [string, FileId][] = [];
  const manifests = new Map<CatalogId, ManifestFile[]>();

  for (const [id, c] of state.dataFiles) {
    const kind = classify(c);
    if (kind === 'none') continue;
    mutations.push(...versionMutations(Tag.DataFile, [c.tableId, id], c, at, kind));
    const d = delta(c.tableId);
    if (kind === 'created') {
      let files = manifests.get(c.tableId);
      if (!files) manifests.set(c.tableId, (files = []));
      files.push(manifestFile(id, c.next!));
      mutations.push(put(Tag.FileTableIndex, [id], at, { tableId: c.tableId }));
      newPaths.push([c.next!.path, id]);
      inserted.add(c.tableId);
      d.records += c.next!.recordCount;
      d.bytes += c.next!.fileSizeBytes;
    } else {
      if (!tableGone(c.tableId)) deleted.add(c.tableId);
      d.records -= c.base!.row.recordCount;
      d.bytes -= c.base!.row.fileSizeBytes;
    }
  }
  for (const [tableId, files] of manifests) {
    mutations.push(put(Tag.DataFileManifest, [tableId], at, { files: files.sort((a, b) => a[0] - b[0]) } satisfies DataFileManifestRow));
  }
  for (const [id, c] of state.deleteFiles as ReadonlyMap<number, FileChange<unknown>>) {
    const kind = classify(c);
    if (c.endsAtCommit) {
      mutations.push(...ended(Tag.DeleteFile, [c.tableId, id], at, c.next as object, at));
    } else if (kind !== 'none') {
      mutations.push(...versionMutations(Tag.DeleteFile, [c.tableId, id], c, at, kind));
    }
    if (c.base === undefined && c.next !== null) newPaths.push([(c.next as DeleteFileRow).path, id as FileId]);
    if (kind === 'created' && !tableGone(c.tableId)) deleted.add(c.tableId);
  }

  // The path index learns of every new file row, in one multi-get for the commit's paths.
  const named = await q.filePathRows(view, [...new Set(newPaths.map(([p]) => p))]);
  for (const [p, id] of newPaths) named.get(p)!.push(id);
  for (const [p, fileIds] of named) mutations.push(put(Tag.FilePathIndex, [p], undefined, { fileIds } satisfies FilePathRow));

  for (const [tableId, d] of statsDelta) {
    if (tableGone(tableId)) continue;
    const base = (await q.tableStats(view, tableId)) ?? { recordCount: 0, nextRowId: 0, fileSizeBytes: 0 };
    const stats: TableStatsRow = {
      recordCount: base.recordCount + d.records,
      nextRowId: Math.max(base.nextRowId, state.nextRowIds.get(tableId) ?? 0),
      fileSizeBytes: base.fileSizeBytes + d.bytes,
    };
    mutations.push(put(Tag.TableStats, [tableId], undefined, stats));
  }

  // DuckLake's changes_made vocabulary, in a stable order: creations, data, drops (contents before their
  // schema), alterations.
  const dataChanges: string[] = [];
  for (const t of inserted) {
    if (meta.maintenance && deleted.has(t)) dataChanges.push(`compacted_table:${t}`);
    else dataChanges.push(`inserted_into_table:${t}`);
  }
  for (const t of deleted) if (!(meta.maintenance && inserted.has(t))) dataChanges.push(`deleted_from_table:${t}`);
  const changes = [...created, ...dataChanges, ...dropped, ...droppedSchemas, ...[...altered].map((t) => `altered_table:${t}`)];

  const optionMutations = [...state.options].map(([key, value]) => put(Tag.Metadata, [key], undefined, { value }));

  if (mutations.length === 0) return { mutations: optionMutations, snapshot: null };

  const row: SnapshotRow = {
    // Snapshot times never go backwards, even if the clock does.
    time: Math.max(time, head.time),
    schemaVersion: head.schemaVersion + (schemaChanged ? 1 : 0),
    nextCatalogId: state.nextCatalogId,
    nextFileId: state.nextFileId,
  };
  const changesRow: SnapshotChangesRow = {
    changes,
    author: meta.author ?? null,
    message: meta.message ?? null,
    extraInfo: meta.extraInfo ?? null,
    maintenance: meta.maintenance ?? false,
    ...(meta.readSources?.length ? { readSources: meta.readSources.map((r) => ({ ...r, snapshot: snapshotId(r.snapshot) })) } : {}),
  };
  mutations.push(
    put(Tag.Snapshot, [], at, row),
    put(Tag.SnapshotChanges, [], at, changesRow),
    put(Tag.SnapshotTimeIndex, [row.time], at, {}),
    put(Tag.System, [SystemKey.HeadSnapshot], undefined, { id: at }),
  );
  if (schemaChanged) mutations.push(put(Tag.SchemaVersions, [], at, { schemaVersion: row.schemaVersion }));
  mutations.push(...optionMutations);
  return { mutations, snapshot: { id: at, row, changes } };
}
