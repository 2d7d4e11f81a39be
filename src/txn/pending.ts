// What a transaction sees and changes: the catalog at its base snapshot (through one read view) overlaid with
// its pending Changes. Every lookup resolves pending changes first, then the base; an entity touched for the
// first time is loaded as an unchanged Change, so the net effect of a transaction is always (base, next) per
// entity (change.ts). Operations (transaction.ts) validate and read through this, and mutate it last.
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { NameMapping } from '../../keys/name-mappings.js';
import { type CatalogId, type ColumnId, catalogId, type FileId, fileId, type SnapshotId } from '../../keys/ids.js';
import { type ColumnRow, columnsOfTable } from '../../keys/columns.js';
import type { DataFileRow } from '../../keys/data-files.js';
import type { DeleteFileRow } from '../../keys/delete-files.js';
import { type RelationKind, relationNameEntity, tableEntity, type TableRow, viewEntity, type ViewRow } from '../../keys/relations.js';
import type { SchemaRow } from '../../keys/schemas.js';
import type { TableStatsRow } from '../../keys/stats.js';
import { StrataError } from '../errors.js';
import { listed, quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { dataFile, dataFilesAt, deleteFilesAt } from '../read/file-listing.js';
import { checkCount, checkName } from '../arguments.js';
import { append } from '../../keys/mutation.js';
import { type IdKind, type IdSource, noIds, type TakenIds } from './ids.js';
import { type Change, unchanged } from './change.js';

export type FileChange<T> = Change<T> & {
  tableId: CatalogId;
  /** A file registered and retired by the same commit: kept in the catalog so reclamation knows it. */
  endsAtCommit?: boolean;
};

export interface TableColumns {
  changes: Map<ColumnId, Change<ColumnRow>>;
  nextId: number;
}

/** The operations a transaction offers, by name. */
export type OpName =
  | 'createSchema'
  | 'dropSchema'
  | 'createTable'
  | 'renameTable'
  | 'dropTable'
  | 'addColumn'
  | 'dropColumn'
  | 'renameColumn'
  | 'alterColumnType'
  | 'createView'
  | 'dropView'
  | 'addDataFile'
  | 'removeDataFile'
  | 'addDeleteFile'
  | 'restoreTable'
  | 'restoreCatalog'
  | 'importSnapshot'
  | 'setOption';

/** An operation a transaction ran, as a rebase replays it. */
export interface RecordedOp {
  name: OpName;
  args: unknown[];
  result: unknown;
  /** The ids it reserved: a replay reserves them again, so what the caller was given is what commits. */
  ids: TakenIds;
}

/** Everything plan.ts needs to turn the transaction into mutations. */
export interface PendingState {
  base: SnapshotId;
  schemas: ReadonlyMap<CatalogId, Change<SchemaRow>>;
  tables: ReadonlyMap<CatalogId, Change<TableRow>>;
  views: ReadonlyMap<CatalogId, Change<ViewRow>>;
  columns: ReadonlyMap<CatalogId, TableColumns>;
  dataFiles: ReadonlyMap<FileId, FileChange<DataFileRow>>;
  /** Column statistics of data files this transaction adds. */
  fileStats: ReadonlyMap<FileId, ColumnStats[]>;
  /** Name mappings of data files this transaction adds that carry no field ids. */
  fileMappings: ReadonlyMap<FileId, NameMapping>;
  deleteFiles: ReadonlyMap<FileId, FileChange<DeleteFileRow>>;
  nextRowIds: ReadonlyMap<CatalogId, number>;
  /** The stats of tables as the base snapshot has them, where the transaction read them (plan.ts adds to them). */
  baseStats: ReadonlyMap<CatalogId, TableStatsRow | undefined>;
  options: ReadonlyMap<string, string>;
  nextCatalogId: CatalogId;
  nextFileId: FileId;
  /** The operations that made this state, in order: what a rebase replays. */
  ops: readonly RecordedOp[];
  restoredTables: ReadonlySet<CatalogId>;
  /** The catalog ids this transaction took from its id source for new schemas, tables and views. */
  newCatalogIds: ReadonlySet<CatalogId>;
  /** The file ids it took from its id source (fresh-ids.ts: their block was checked when claimed). */
  takenFileIds: ReadonlySet<FileId>;
  /** Commit a snapshot even if nothing changed: an imported lake's snapshot keeps its id. */
  keepEmptySnapshot: boolean;
  /** An imported lake's snapshot id, which the commit takes instead of the next one (imported.ts). */
  importedAs: SnapshotId | undefined;
}

export const notFound = (message: string) => new StrataError('NOT_FOUND', message);
export const alreadyExists = (message: string) => new StrataError('ALREADY_EXISTS', message);
export const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

export interface ResolvedTable {
  schemaId: CatalogId;
  id: CatalogId;
  change: Change<TableRow>;
}

const nameKey = (schemaId: CatalogId, name: string) => `${schemaId}\0${name}`;

export class PendingCatalog {
  readonly schemas = new Map<CatalogId, Change<SchemaRow>>();
  readonly tables = new Map<CatalogId, Change<TableRow>>();
  readonly views = new Map<CatalogId, Change<ViewRow>>();
  readonly columns = new Map<CatalogId, TableColumns>();
  readonly dataFiles = new Map<FileId, FileChange<DataFileRow>>();
  readonly fileStats = new Map<FileId, ColumnStats[]>();
  readonly fileMappings = new Map<FileId, NameMapping>();
  readonly deleteFiles = new Map<FileId, FileChange<DeleteFileRow>>();
  /** Tables whose live data files (or delete files) at the base snapshot are all loaded into the maps. */
  readonly dataFilesLoaded = new Set<CatalogId>();
  readonly deleteFilesLoaded = new Set<CatalogId>();
  readonly nextRowIds = new Map<CatalogId, number>();
  private readonly baseStats = new Map<CatalogId, TableStatsRow | undefined>();
  readonly options = new Map<string, string>();
  readonly restoredTables = new Set<CatalogId>();
  private readonly newCatalogIds = new Set<CatalogId>();
  private readonly takenFileIds = new Set<FileId>();
  keepEmptySnapshot = false;
  importedAs: SnapshotId | undefined;
  /** Relations given a name by this transaction, by (schema, name); see renamed(). */
  private readonly named = new Map<string, { kind: RelationKind; id: CatalogId }>();
  private nextCatalogId: number;
  private nextFileId: number;
  /**
   * The ids the operation in progress reserved, and how many of each it has used: recorded with it, so
   * that a replay reserves (and hands out) the same ones.
   */
  private reserved: TakenIds = noIds();
  private used: Record<IdKind, number> = { catalog: 0, file: 0 };

  constructor(
    readonly view: ReadView,
    /** The snapshot the transaction builds on: the newest one in its read view. */
    readonly base: SnapshotId,
    counters: { nextCatalogId: CatalogId; nextFileId: FileId },
    private readonly ids: IdSource,
    /** The snapshot the caller's writes were worked out at: a file removed since is a conflict, not a mistake. */
    private readonly basedOn?: SnapshotId,
  ) {
    this.nextCatalogId = counters.nextCatalogId;
    this.nextFileId = counters.nextFileId;
  }

  /** Reserves `n` ids of `kind` for the operation in progress, which then takes them without waiting. */
  async reserve(kind: IdKind, n: number): Promise<void> {
    const ids = await this.ids.take(kind, n);
    append(this.reserved[kind], ids);
    // The snapshot's counters stay above every id the commit may hold.
    const next = ids.reduce((max, id) => Math.max(max, id + 1), 0);
    if (kind === 'catalog') this.nextCatalogId = Math.max(this.nextCatalogId, next);
    else this.nextFileId = Math.max(this.nextFileId, next);
  }

  /** Keeps the snapshot's counters at or above these (an import gives the lake's own). */
  raiseCounters(nextCatalogId: number, nextFileId: number): void {
    this.nextCatalogId = Math.max(this.nextCatalogId, nextCatalogId);
    this.nextFileId = Math.max(this.nextFileId, nextFileId);
  }

  /** A reserved id (see reserve). */
  takeCatalogId(): CatalogId {
    return catalogId(this.takeReserved('catalog'));
  }

  takeFileId(): FileId {
    const id = fileId(this.takeReserved('file'));
    this.takenFileIds.add(id);
    return id;
  }

  private takeReserved(kind: IdKind): number {
    const id = this.reserved[kind][this.used[kind]++];
    if (id === undefined) throw new Error(`an operation took a ${kind} id it had not reserved`);
    return id;
  }

  /** A catalog id for a new schema, table or view. */
  async allocateCatalogId(): Promise<CatalogId> {
    await this.reserve('catalog', 1);
    const id = this.takeCatalogId();
    this.newCatalogIds.add(id);
    return id;
  }

  async allocateFileId(): Promise<FileId> {
    await this.reserve('file', 1);
    return this.takeFileId();
  }

  /**
   * The ids the operation that just ended reserved, to record with it; what it left unused is dropped, so
   * each operation's ids are its own on a replay too.
   */
  endOperation(): TakenIds {
    const reserved = this.reserved;
    this.reserved = noIds();
    this.used = { catalog: 0, file: 0 };
    return reserved;
  }

  /** The state as plan.ts takes it, with the operations that made it. */
  state(ops: readonly RecordedOp[]): PendingState {
    return {
      base: this.base,
      schemas: this.schemas,
      tables: this.tables,
      views: this.views,
      columns: this.columns,
      dataFiles: this.dataFiles,
      fileStats: this.fileStats,
      fileMappings: this.fileMappings,
      deleteFiles: this.deleteFiles,
      nextRowIds: this.nextRowIds,
      baseStats: this.baseStats,
      options: this.options,
      nextCatalogId: catalogId(this.nextCatalogId),
      nextFileId: fileId(this.nextFileId),
      ops,
      restoredTables: this.restoredTables,
      newCatalogIds: this.newCatalogIds,
      takenFileIds: this.takenFileIds,
      keepEmptySnapshot: this.keepEmptySnapshot,
      importedAs: this.importedAs,
    };
  }

  // ---- resolution: pending changes first, then the base snapshot

  async schemaId(name: string): Promise<CatalogId | undefined> {
    for (const [id, c] of this.schemas) if (c.next?.name === name) return id;
    const id = await q.schemaIdByName(this.view, this.base, name);
    if (id === undefined) return undefined;
    const c = await this.loadSchema(id);
    return c.next?.name === name ? id : undefined;
  }

  async requireSchema(name: string): Promise<CatalogId> {
    checkName('schema name', name);
    const id = await this.schemaId(name);
    if (id !== undefined) return id;
    const live: string[] = [];
    for await (const v of q.schemasAt(this.view, this.base)) {
      const next = (await this.loadSchema(v.id)).next;
      if (next) live.push(next.name);
    }
    for (const c of this.schemas.values()) if (c.base === undefined && c.next) live.push(c.next.name);
    throw notFound(`schema ${quote(name)} does not exist; schemas: ${listed(live)}`);
  }

  /** The entity's pending change, starting from its version at the base snapshot on first touch. */
  async load<T extends { end: SnapshotId | null }>(
    map: Map<CatalogId, Change<T>>,
    id: CatalogId,
    fetch: (view: ReadView, at: SnapshotId, id: CatalogId) => Promise<q.Version<T> | undefined>,
  ): Promise<Change<T>> {
    let c = map.get(id);
    if (!c) {
      c = unchanged(await fetch(this.view, this.base, id));
      map.set(id, c);
    }
    return c;
  }

  loadSchema = (id: CatalogId) => this.load(this.schemas, id, q.schemaAt);
  loadTable = (id: CatalogId) => this.load(this.tables, id, q.tableAt);
  loadView = (id: CatalogId) => this.load(this.views, id, q.viewAt);

  /** The tables and views in a schema after the pending changes, by name. */
  async relations(schemaId: CatalogId): Promise<Map<string, { kind: RelationKind; id: CatalogId }>> {
    const out = new Map<string, { kind: RelationKind; id: CatalogId }>();
    const found: { kind: RelationKind; id: CatalogId }[] = [];
    for await (const rel of q.relationsAt(this.view, this.base, schemaId)) found.push(rel);
    await this.view.prefetch(found.map((rel) => (rel.kind === 'table' ? tableEntity(rel.id) : viewEntity(rel.id))));
    for (const rel of found) {
      const c = rel.kind === 'table' ? await this.loadTable(rel.id) : await this.loadView(rel.id);
      if (c.next?.schemaId === schemaId) out.set(c.next.name, rel);
    }
    for (const [kind, map] of [['table', this.tables], ['view', this.views]] as const) {
      for (const [id, c] of map) {
        if (c.base === undefined && c.next?.schemaId === schemaId) out.set(c.next.name, { kind, id });
      }
    }
    return out;
  }

  /**
   * Reads at once what dropping these relations of a schema will resolve one by one (their columns, and
   * the name entries the commit ends): a cascade over thousands of tables, one scan instead of thousands.
   */
  async prefetchDrops(schemaId: CatalogId, rels: ReadonlyMap<string, { kind: RelationKind; id: CatalogId }>): Promise<void> {
    const groups = [];
    for (const [name, rel] of rels) {
      groups.push(relationNameEntity(schemaId, name));
      if (rel.kind === 'table') groups.push(columnsOfTable(rel.id));
    }
    await this.view.prefetch(groups);
  }

  async relation(schemaId: CatalogId, name: string): Promise<{ kind: RelationKind; id: CatalogId } | undefined> {
    const named = this.named.get(nameKey(schemaId, name));
    if (named !== undefined) {
      const next = (named.kind === 'table' ? this.tables : this.views).get(named.id)?.next;
      if (next?.schemaId === schemaId && next.name === name) return named;
    }
    const rel = await q.relationByName(this.view, this.base, schemaId, name);
    if (rel === undefined) return undefined;
    const c = rel.kind === 'table' ? await this.loadTable(rel.id) : await this.loadView(rel.id);
    return c.next?.schemaId === schemaId && c.next.name === name ? rel : undefined;
  }

  /**
   * Records that relation `id` now has the name its pending change gives it (after a create, a rename, a
   * restore): relation() looks names up here instead of scanning every pending change, which made a
   * transaction creating n tables cost n².
   */
  renamed(kind: RelationKind, id: CatalogId): void {
    const next = (kind === 'table' ? this.tables : this.views).get(id)?.next;
    if (next) this.named.set(nameKey(next.schemaId, next.name), { kind, id });
  }

  async requireFreeRelationName(schemaId: CatalogId, schema: string, name: string): Promise<void> {
    const rel = await this.relation(schemaId, name);
    if (rel) throw alreadyExists(`${rel.kind} ${quote(schema, name)} already exists (id ${rel.id})`);
  }

  async requireTable(schema: string, name: string): Promise<ResolvedTable> {
    const schemaId = await this.requireSchema(schema);
    const rel = await this.relation(schemaId, name);
    if (rel?.kind === 'table') return { schemaId, id: rel.id, change: this.tables.get(rel.id)! };
    if (rel?.kind === 'view') throw notFound(`${quote(schema, name)} is a view, not a table`);
    const tables = [...(await this.relations(schemaId))].filter(([, r]) => r.kind === 'table').map(([n]) => n);
    throw notFound(`table ${quote(schema, name)} does not exist; tables in ${quote(schema)}: ${listed(tables)}`);
  }

  async loadColumns(tableId: CatalogId): Promise<TableColumns> {
    let cols = this.columns.get(tableId);
    if (!cols) {
      // Column ids are never reused, so the next one comes after every id the table ever had: those of its
      // versions, and those excision took (keys/columns.ts).
      const all = await q.columnsOf(this.view, tableId, undefined);
      const [floor] = await q.columnIdFloors(this.view, [tableId]);
      cols = {
        changes: new Map(
          (await q.columnsOf(this.view, tableId, this.base)).map((v) => [v.id, unchanged<ColumnRow>(v)]),
        ),
        nextId: Math.max(floor?.next ?? 1, ...all.map((v) => v.id + 1)),
      };
      this.columns.set(tableId, cols);
    }
    return cols;
  }

  async requireColumn(schema: string, table: string, column: string) {
    checkName('column name', column);
    const t = await this.requireTable(schema, table);
    const cols = await this.loadColumns(t.id);
    const live = topLevel(cols);
    const found = live.find(([, c]) => c.next!.name === column);
    if (!found) {
      throw notFound(
        `column ${quote(column)} does not exist in table ${quote(schema, table)}; columns: ${listed(live.map(([, c]) => c.next!.name))}`,
      );
    }
    const [id, change] = found;
    return { id, change, cols, live: live.length };
  }

  // ---- files

  async nextRowId(tableId: CatalogId): Promise<number> {
    let next = this.nextRowIds.get(tableId);
    if (next === undefined) {
      next = (await this.tableStats(tableId))?.nextRowId ?? 0;
      this.nextRowIds.set(tableId, next);
    }
    return next;
  }

  async requireLiveDataFile(
    schema: string,
    table: string,
    tableId: CatalogId,
    id: unknown,
  ): Promise<FileChange<DataFileRow>> {
    const fid = checkCount('dataFileId', id) as FileId;
    let c = this.dataFiles.get(fid);
    if (!c) {
      const owner = await q.tableOfDataFile(this.view, fid);
      if (owner === undefined) throw notFound(`data file ${fid} does not exist`);
      if (owner !== tableId) {
        const ownerRow = (await this.loadTable(owner)).next;
        throw invalid(
          `data file ${fid} belongs to ${ownerRow ? `table ${quote(ownerRow.name)}` : `dropped table ${owner}`}, not to ${quote(schema, table)}`,
        );
      }
      const v = await dataFile(this.view, tableId, fid);
      c = { tableId, ...(v && v.row.end === null ? unchanged(v) : { base: undefined, next: null }) };
      if (c.next === null) {
        const end = v?.row.end ?? null;
        if (this.basedOn !== undefined && end !== null && end > this.basedOn) {
          throw new StrataError(
            'CONFLICT',
            `data file ${fid} of ${quote(schema, table)} was removed at snapshot ${end}, by a commit after snapshot ${this.basedOn} that this transaction's writes were worked out at; ` +
              'nothing was written — read the new state and run it again',
            { snapshot: end },
          );
        }
        throw notFound(`data file ${fid} of ${quote(schema, table)} was removed at snapshot ${end}`);
      }
      this.dataFiles.set(fid, c);
    }
    if (c.tableId !== tableId) throw invalid(`data file ${fid} belongs to table ${c.tableId}, not to ${quote(schema, table)}`);
    if (c.next === null) throw notFound(`data file ${fid} of ${quote(schema, table)} is already removed by this transaction`);
    return c;
  }

  /** Ends a data file and its live delete files (the caller has loaded the table's delete files). */
  retireDataFile(id: FileId, file: FileChange<DataFileRow>): void {
    file.next = null;
    for (const [did, d] of this.deleteFiles) {
      if (d.tableId !== file.tableId || d.next?.dataFileId !== id) continue;
      if (d.base === undefined && !d.endsAtCommit) this.deleteFiles.delete(did);
      else if (d.base !== undefined) d.next = null;
    }
    if (file.base === undefined) this.dataFiles.delete(id);
  }

  async loadDataFiles(tableId: CatalogId): Promise<void> {
    if (this.dataFilesLoaded.has(tableId)) return;
    if (await this.hasNoLiveFiles(tableId)) return void this.dataFilesLoaded.add(tableId);
    for await (const batch of dataFilesAt(this.view, this.base, tableId)) {
      for (const v of batch) if (!this.dataFiles.has(v.id)) this.dataFiles.set(v.id, { tableId, ...unchanged(v) });
    }
    this.dataFilesLoaded.add(tableId);
  }

  async loadDeleteFiles(tableId: CatalogId): Promise<void> {
    if (this.deleteFilesLoaded.has(tableId)) return;
    if (await this.hasNoLiveFiles(tableId)) return void this.deleteFilesLoaded.add(tableId);
    for await (const batch of deleteFilesAt(this.view, this.base, tableId)) {
      for (const v of batch) if (!this.deleteFiles.has(v.id)) this.deleteFiles.set(v.id, { tableId, ...unchanged(v) });
    }
    this.deleteFilesLoaded.add(tableId);
  }

  /**
   * Whether the table's stats (the base snapshot's: the newest) count no live data file, and so no live
   * delete file either: listing is skipped, which a cascade over thousands of fresh tables would otherwise pay.
   */
  private async hasNoLiveFiles(tableId: CatalogId): Promise<boolean> {
    return (await this.tableStats(tableId))?.dataFiles === 0;
  }

  private async tableStats(tableId: CatalogId): Promise<TableStatsRow | undefined> {
    if (!this.baseStats.has(tableId)) this.baseStats.set(tableId, await q.tableStats(this.view, tableId));
    return this.baseStats.get(tableId);
  }

  // ---- drops: load everything first, return the mutation to apply once every load has succeeded

  async prepareDropTable(tableId: CatalogId): Promise<() => void> {
    const table = await this.loadTable(tableId);
    const cols = await this.loadColumns(tableId);
    await this.loadDataFiles(tableId);
    await this.loadDeleteFiles(tableId);
    return () => {
      table.next = null;
      for (const c of cols.changes.values()) c.next = null;
      for (const files of [this.dataFiles, this.deleteFiles] as Map<FileId, FileChange<unknown>>[]) {
        for (const [id, c] of files) {
          if (c.tableId !== tableId) continue;
          if (c.base === undefined) files.delete(id);
          else c.next = null;
        }
      }
    };
  }

  prepareDropView(viewId: CatalogId): () => void {
    const view = this.views.get(viewId)!;
    return () => {
      view.next = null;
    };
  }
}

/** A table's live columns that are not fields of a nested column: the ones named by table-level operations. */
export function topLevel(cols: TableColumns): [ColumnId, Change<ColumnRow>][] {
  return [...cols.changes].filter(([, c]) => c.next !== null && c.next.parentColumn === null);
}

/** The live fields of column `id`, at every depth. */
export function descendants(cols: TableColumns, id: ColumnId): ColumnId[] {
  const children = [...cols.changes].filter(([, c]) => c.next !== null && c.next.parentColumn === id).map(([k]) => k);
  return children.flatMap((k) => [k, ...descendants(cols, k)]);
}
