// Turns a sealed transaction into the key/value mutations of one log entry, and writes DuckLake's
// snapshot-changes record in one place. New versions get begin = the new snapshot; replaced versions keep
// their key and get end = the new snapshot; index entries change in the same batch as what they index.
import { columnEntity } from '../../keys/columns.js';
import { addedDataFiles, type BaseFile, baseValues, dataFileEntity, type ManifestFile, manifestFile, pathRef } from '../../keys/data-files.js';
import { putFileColumnStats } from '../../keys/file-column-stats.js';
import { putNameMapping } from '../../keys/name-mappings.js';
import { deleteFileEntity, type DeleteFileRow } from '../../keys/delete-files.js';
import { type CatalogId, type FileId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { append, type Mutation } from '../../keys/mutation.js';
import { putOption } from '../../keys/options.js';
import { relationNameEntity, type RelationKind, tableEntity, type TableRow, viewEntity, type ViewRow } from '../../keys/relations.js';
import { schemaEntity, schemaNameEntity, type SchemaRow } from '../../keys/schemas.js';
import { createSnapshot, type SnapshotChangesRow, type SnapshotRow } from '../../keys/snapshots.js';
import { changedTableStats, droppedTableStats, EMPTY_TABLE_STATS, NO_DELETES, putTableStats, recreatedTableStats, type TableStatsDelta } from '../../keys/stats.js';
import type { Entity, Versioned } from '../../keys/versions.js';
import { baseFilesAt, rebaseDue } from '../read/file-listing.js';
import { checkReadSources, type ReadSource } from '../read/history.js';
import { checkCount, checkOptionalText, options } from '../arguments.js';
import { StrataError } from '../errors.js';
import { quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { type Change, type ChangeKind, classify } from './change.js';
import { assertFreshIds } from './fresh-ids.js';
import type { PendingState } from './pending.js';

export interface CommitMeta {
  author?: string;
  message?: string;
  extraInfo?: string;
  /** Compaction, stats refresh and the like: "previous" skips these commits. */
  maintenance?: boolean;
  /** The table snapshots the commit was computed from: `catalog.lineage(snapshot)` returns them. */
  readSources?: ReadSource[];
  /**
   * The snapshot the transaction's writes were worked out from (a DELETE's positions, say), when older than
   * the head it runs on: every commit after it is checked for conflicts as on a rebase, so a concurrent
   * change the writes did not see is CONFLICT rather than overwritten.
   */
  basedOn?: number;
}

/** Commit metadata as a caller gives it, checked. */
export function checkCommitMeta(given: CommitMeta | undefined): CommitMeta {
  const meta = options('commit metadata', given, ['author', 'message', 'extraInfo', 'maintenance', 'readSources', 'basedOn']);
  if (meta.basedOn !== undefined) checkCount('basedOn', meta.basedOn);
  checkOptionalText('author', meta.author);
  checkOptionalText('message', meta.message);
  checkOptionalText('extraInfo', meta.extraInfo);
  if (meta.maintenance !== undefined && typeof meta.maintenance !== 'boolean') {
    throw new StrataError('INVALID_ARGUMENT', 'maintenance must be a boolean');
  }
  return { ...meta, readSources: checkReadSources(meta.readSources) };
}

export interface Plan {
  mutations: Mutation[];
  /** The snapshot the entry creates, or null when the net effect on the catalog is empty. */
  snapshot: { id: SnapshotId; row: SnapshotRow; changes: string[] } | null;
}

/** The mutations that take one entity from its base version to its next one. */
function versionMutations<T extends Versioned>(entity: Entity<T>, c: Change<T>, at: SnapshotId, kind: ChangeKind): Mutation[] {
  const out: Mutation[] = [];
  if (c.base && (kind === 'dropped' || kind === 'altered')) append(out, entity.end(c.base, at));
  if (c.next && (kind === 'created' || kind === 'altered')) out.push(entity.create(at, c.next));
  return out;
}

/**
 * The `changes_made` entries for what a state does to tables' data: inserted_into_table, deleted_from_table,
 * and compacted_table for a maintenance commit that does both. For a state that only adds and removes files
 * these are all its changes, which a transaction planned only where it lands needs before that (its
 * conflict check: prepared.ts).
 */
export function dataChanges(state: PendingState, meta: CommitMeta): string[] {
  const inserted = new Set<CatalogId>();
  const deleted = new Set<CatalogId>();
  const tableGone = (tableId: CatalogId) => state.tables.get(tableId)?.next === null;
  for (const c of state.dataFiles.values()) {
    const kind = classify(c);
    if (kind === 'created') inserted.add(c.tableId);
    else if (kind !== 'none' && !tableGone(c.tableId)) deleted.add(c.tableId);
  }
  for (const [tableId, d] of deleteCountChanges(state)) {
    if (tableGone(tableId)) continue;
    // Cumulative delete files: more positions deleted rows, fewer brought rows back (a restore), as many
    // but others did both.
    if (d.after >= d.before) deleted.add(tableId);
    if (d.after <= d.before) inserted.add(tableId);
  }
  const out: string[] = [];
  for (const t of inserted) out.push(meta.maintenance && deleted.has(t) ? `compacted_table:${t}` : `inserted_into_table:${t}`);
  for (const t of deleted) if (!(meta.maintenance && inserted.has(t))) out.push(`deleted_from_table:${t}`);
  return out;
}

/**
 * For each data file that stays (neither new nor ended here) and whose delete file changes, how many rows
 * its delete files held before and hold after, with its table. A new file's deletes were never rows anyone
 * saw; an ended file's rows go with it.
 */
function deleteCountChanges(state: PendingState): [CatalogId, { before: number; after: number }][] {
  const byFile = new Map<FileId, [CatalogId, { before: number; after: number }]>();
  for (const c of state.deleteFiles.values()) {
    const kind = classify(c);
    if (kind === 'none') continue;
    const dataFileId = (c.next ?? c.base!.row).dataFileId;
    const file = state.dataFiles.get(dataFileId);
    if (file !== undefined && (file.base === undefined || file.next === null)) continue;
    let entry = byFile.get(dataFileId);
    if (!entry) byFile.set(dataFileId, (entry = [c.tableId, { before: 0, after: 0 }]));
    entry[1].before += c.base?.row.deleteCount ?? 0;
    entry[1].after += c.next?.deleteCount ?? 0;
  }
  return [...byFile.values()];
}

/** What a plan gathers as it goes through the families: the entry's mutations and its changes_made. */
class Gathered {
  readonly mutations: Mutation[] = [];
  readonly created: string[] = [];
  readonly dropped: string[] = [];
  readonly droppedSchemas: string[] = [];
  readonly altered = new Set<CatalogId>();
  schemaChanged = false;

  constructor(
    readonly view: ReadView,
    readonly state: PendingState,
    readonly at: SnapshotId,
  ) {}

  /** Name index entries follow the (parent, name) of the rows they index. */
  async endNameEntry<T extends Versioned>(entry: Entity<T>): Promise<void> {
    const old = await q.versionAt(this.view, entry, this.state.base);
    if (old) append(this.mutations, entry.end(old, this.at));
  }

  async schemaName(id: CatalogId): Promise<string> {
    return this.state.schemas.get(id)?.next?.name ?? (await q.schemaAt(this.view, this.state.base, id))?.row.name ?? String(id);
  }
}

// Each family is planned by a function of its own: a transaction that only registers files runs none of the
// others, and V8 optimizes small functions sooner and compiles them in less time than one that does it all
// (planCommit whole took 150–200 ms of a compiler thread per compile, and was compiled three times).

async function planSchemas(g: Gathered): Promise<void> {
  for (const [id, c] of g.state.schemas) {
    const kind = classify<SchemaRow>(c);
    if (kind === 'none') continue;
    g.schemaChanged = true;
    append(g.mutations, versionMutations(schemaEntity(id), c, g.at, kind));
    if (c.base?.row.name !== c.next?.name) {
      if (c.base) await g.endNameEntry(schemaNameEntity(c.base.row.name));
      if (c.next) g.mutations.push(schemaNameEntity(c.next.name).create(g.at, { schemaId: id }));
    }
    if (kind === 'created') g.created.push(`created_schema:${quote(c.next!.name)}`);
    if (kind === 'dropped') g.droppedSchemas.push(`dropped_schema:${id}`);
  }
}

async function planRelations(g: Gathered, relKind: RelationKind, entityOf: (id: CatalogId) => Entity<TableRow | ViewRow>, map: ReadonlyMap<CatalogId, Change<TableRow | ViewRow>>): Promise<void> {
  for (const [id, c] of map) {
    const kind = classify<TableRow | ViewRow>(c);
    if (kind === 'none') continue;
    g.schemaChanged = true;
    append(g.mutations, versionMutations(entityOf(id), c, g.at, kind));
    const from = c.base && { schemaId: c.base.row.schemaId, name: c.base.row.name };
    const to = c.next && { schemaId: c.next.schemaId, name: c.next.name };
    if (from?.schemaId !== to?.schemaId || from?.name !== to?.name) {
      if (from) await g.endNameEntry(relationNameEntity(from.schemaId, from.name));
      if (to) g.mutations.push(relationNameEntity(to.schemaId, to.name).create(g.at, { kind: relKind, id }));
    }
    if (kind === 'created') g.created.push(`created_${relKind}:${quote(await g.schemaName(c.next!.schemaId), c.next!.name)}`);
    if (kind === 'dropped') g.dropped.push(`dropped_${relKind}:${id}`);
    if (kind === 'altered') g.altered.add(id);
    // A table created again under its id (a catalog restore of a dropped one) starts from what its drop kept.
    if (kind === 'created' && relKind === 'table') g.mutations.push(putTableStats(id, recreatedTableStats(await q.tableStats(g.view, id))));
  }
}

function planColumns(g: Gathered): void {
  for (const [tableId, cols] of g.state.columns) {
    const table = g.state.tables.get(tableId);
    const tableKind = table ? classify(table) : 'none';
    for (const [colId, c] of cols.changes) {
      const kind = classify(c);
      if (kind === 'none') continue;
      g.schemaChanged = true;
      append(g.mutations, versionMutations(columnEntity(tableId, colId), c, g.at, kind));
      if (tableKind === 'none' || tableKind === 'altered') g.altered.add(tableId);
    }
  }
}

/** Every file a state registers (a data file it adds, a delete file it writes) by its object path: what its plan adds to the path index. */
export function registeredFiles(state: PendingState): [string, FileId][] {
  const out: [string, FileId][] = [];
  for (const [id, c] of state.dataFiles) if (classify(c) === 'created') out.push([c.next!.path, id]);
  for (const [id, c] of state.deleteFiles) if (c.base === undefined && c.next !== null) out.push([(c.next as DeleteFileRow).path, id]);
  return out;
}

/** Data and delete files, the path index and the tables' stats: what each table gained and lost. */
async function planFiles(g: Gathered): Promise<void> {
  const { state, at, mutations } = g;
  const statsDelta = new Map<CatalogId, TableStatsDelta>();
  const delta = (tableId: CatalogId) => {
    let d = statsDelta.get(tableId);
    if (!d) statsDelta.set(tableId, (d = { records: 0, bytes: 0, files: 0, ended: 0, deletes: { ...NO_DELETES } }));
    return d;
  };
  const tableGone = (tableId: CatalogId) => state.tables.get(tableId)?.next === null;
  const manifests = new Map<CatalogId, ManifestFile[]>();

  for (const [id, c] of state.dataFiles) {
    const kind = classify(c);
    if (kind === 'none') continue;
    append(mutations, versionMutations(dataFileEntity(c.tableId, id), c, at, kind));
    const d = delta(c.tableId);
    if (kind === 'created') {
      let files = manifests.get(c.tableId);
      if (!files) manifests.set(c.tableId, (files = []));
      files.push(manifestFile(id, c.next!));
      const stats = state.fileStats.get(id);
      if (stats !== undefined) mutations.push(putFileColumnStats(c.tableId, id, at, stats));
      const mapping = state.fileMappings.get(id);
      if (mapping !== undefined) mutations.push(putNameMapping(c.tableId, id, at, mapping));
      d.records += c.next!.recordCount;
      d.bytes += c.next!.fileSizeBytes;
      d.files++;
    } else {
      d.records -= c.base!.row.recordCount;
      d.bytes -= c.base!.row.fileSizeBytes;
      d.files--;
      d.ended++;
    }
  }
  for (const [tableId, files] of manifests) append(mutations, addedDataFiles(tableId, at, files));
  for (const [id, c] of state.deleteFiles) {
    const kind = classify(c);
    const entity = deleteFileEntity(c.tableId, id);
    if (c.endsAtCommit) append(mutations, entity.end({ begin: at, row: c.next! }, at));
    else if (kind !== 'none') {
      append(mutations, versionMutations(entity, c, at, kind));
      const { deletes } = delta(c.tableId);
      for (const [row, sign] of [[c.base?.row, -1], [c.next, 1]] as const) {
        if (!row) continue;
        deletes.files += sign;
        deletes.bytes += sign * row.fileSizeBytes;
        deletes.rows += sign * row.deleteCount;
      }
    }
  }

  // The path index learns of every new file row by a key of its own: nothing is read (decision 0067).
  for (const [p, id] of registeredFiles(state)) mutations.push(pathRef(p, id));

  for (const [tableId, d] of statsDelta) {
    const stored = state.baseStats.has(tableId) ? state.baseStats.get(tableId) : await q.tableStats(g.view, tableId);
    const table = state.tables.get(tableId);
    const read = table !== undefined && classify(table) === 'created' ? recreatedTableStats(stored) : stored;
    if (tableGone(tableId)) {
      // It keeps the stats it had; only the count of files its drop ended moves.
      if (read === undefined) continue;
      const kept = droppedTableStats(read, d);
      if (kept !== read) mutations.push(putTableStats(tableId, kept));
      continue;
    }
    const stats = changedTableStats(read ?? EMPTY_TABLE_STATS, d, state.nextRowIds.get(tableId) ?? 0);
    if (rebaseDue(stats)) {
      append(mutations, baseValues(tableId, at, await filesAfter(g, tableId, manifests.get(tableId) ?? [])));
      stats.listed = stats.dataFiles!;
    }
    mutations.push(putTableStats(tableId, stats));
  }
}

/** The files of table `tableId` visible once this commit lands: those at its base but the ones it ends, and those it adds (`added`, by id). */
async function filesAfter(g: Gathered, tableId: CatalogId, added: readonly ManifestFile[]): Promise<BaseFile[]> {
  const ended = new Set<number>();
  for (const [id, c] of g.state.dataFiles) if (c.tableId === tableId && classify(c) === 'dropped') ended.add(id);
  const files = (await baseFilesAt(g.view, g.state.base, tableId)).filter(([, f]) => !ended.has(f[0]));
  for (const f of added) files.push([g.at, f]);
  return files;
}

export async function planCommit(
  view: ReadView,
  state: PendingState,
  head: SnapshotRow,
  meta: CommitMeta,
  time: number,
): Promise<Plan> {
  // An imported lake's snapshot keeps its id; ids it does not hold stay unused (SNAPSHOT_NOT_FOUND, as in the lake).
  const at = state.importedAs ?? snapshotId(state.base + 1);
  await assertFreshIds(view, state);
  const g = new Gathered(view, state, at);
  if (state.schemas.size > 0) await planSchemas(g);
  if (state.tables.size > 0) await planRelations(g, 'table', tableEntity as (id: CatalogId) => Entity<TableRow | ViewRow>, state.tables);
  if (state.views.size > 0) await planRelations(g, 'view', viewEntity as (id: CatalogId) => Entity<TableRow | ViewRow>, state.views);
  if (state.columns.size > 0) planColumns(g);
  await planFiles(g);
  const { mutations } = g;

  // DuckLake's changes_made vocabulary, in a stable order: creations, data, drops (contents before their
  // schema), alterations; then restored_table, ours (DuckLake has no restore), for a table a restore changed.
  const changes = g.created.concat(dataChanges(state, meta), g.dropped, g.droppedSchemas);
  for (const t of g.altered) changes.push(`altered_table:${t}`);
  for (const t of state.restoredTables) if (changes.some((c) => c.endsWith(`_table:${t}`))) changes.push(`restored_table:${t}`);

  const optionMutations: Mutation[] = [];
  for (const [key, value] of state.options) optionMutations.push(putOption(key, value));

  if (mutations.length === 0 && !state.keepEmptySnapshot) return { mutations: optionMutations, snapshot: null };

  const row: SnapshotRow = {
    // Snapshot times never go backwards, even if the clock does.
    time: Math.max(time, head.time),
    schemaVersion: head.schemaVersion + (g.schemaChanged ? 1 : 0),
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
  append(mutations, createSnapshot(at, row, changesRow, g.schemaChanged));
  append(mutations, optionMutations);
  return { mutations, snapshot: { id: at, row, changes } };
}
