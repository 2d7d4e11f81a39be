// What a transaction sees and changes: the catalog at its base snapshot (through one read view) overlaid with
// its pending Changes. Every lookup resolves pending changes first, then the base; an entity touched for the
// first time is loaded as an unchanged Change, so the net effect of a transaction is always (base, next) per
// entity (change.ts). Operations (transaction.ts) validate and read through this, and mutate it last, through
// its methods: each says what a change means (a table created with its columns, a delete file replacing the
// one before it), and the pending state is read everywhere else through read-only views.
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { NameMapping } from '../../keys/name-mappings.js';
import { type CatalogId, type ColumnId, catalogId, columnId, type FileId, fileId, type SnapshotId } from '../../keys/ids.js';
import { type ColumnRow, columnsOfTable } from '../../keys/columns.js';
import type { DataFileRow } from '../../keys/data-files.js';
import type { DeleteFileRow } from '../../keys/delete-files.js';
import { type RelationKind, relationNameEntity, tableEntity, type TableRow, viewEntity, type ViewRow } from '../../keys/relations.js';
import type { SchemaRow } from '../../keys/schemas.js';
import type { TableStatsRow } from '../../keys/stats.js';
import type { Version } from '../../keys/versions.js';
import { StrataError } from '../errors.js';
import { listed, quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { dataFile, dataFilesAt, deleteFilesAt } from '../read/file-listing.js';
import { checkCount, checkName } from '../arguments.js';
import { append } from '../../keys/mutation.js';
import { type IdKind, type IdSource, noIds, type TakenIds } from './ids.js';
import { type Change, type Row, unchanged } from './change.js';
import { type ColumnTree, placed } from './column-specs.js';
import { alreadyExists, invalid, notFound } from './refusals.js';
import { ReadSet } from './read-set.js';

export type FileChange<T> = Change<T> & {
  readonly tableId: CatalogId;
  /** A file registered and retired by the same commit: kept in the catalog so reclamation knows it. */
  readonly endsAtCommit?: boolean;
};

export interface TableColumns {
  readonly changes: ReadonlyMap<ColumnId, Change<ColumnRow>>;
  /** Above every column id the table ever had: the next new column's. */
  readonly nextId: number;
}

/** A change as PendingCatalog holds it: only its methods move `next`. */
type Draft<T> = { base: Version<T> | undefined; next: Row<T> | null };
type FileDraft<T> = Draft<T> & { readonly tableId: CatalogId; endsAtCommit?: boolean };
type ColumnsDraft = { changes: Map<ColumnId, Draft<ColumnRow>>; nextId: number };

/** The rows of the entities a transaction loads by id. */
export interface EntityRows {
  schema: SchemaRow;
  table: TableRow;
  view: ViewRow;
}

/** The rows of a transaction's files, by kind. */
interface FileRows {
  data: DataFileRow;
  delete: DeleteFileRow;
}

/** An entity's version at a snapshot, by kind. */
const AT: { [K in q.EntityKind]: (view: ReadView, at: SnapshotId, id: CatalogId) => Promise<q.Version<EntityRows[K]> | undefined> } = {
  schema: q.schemaAt,
  table: q.tableAt,
  view: q.viewAt,
};

/** What a data file brings with it besides its row. */
export interface DataFileExtras {
  /** Its column statistics, as given. */
  stats?: ColumnStats[];
  /** Its name mapping: the row's mappingId names it. */
  mapping?: NameMapping;
  /** The row id after its last, when its rows carry their own ids (default: rowIdStart + recordCount). */
  rowIdEnd?: number;
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
  | 'addDataFiles'
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
  /** What the function read through tx.reads() (and so tx.sql): a commit past commits it did not see checks it (read-set.ts). */
  reads: ReadSet;
}

export interface ResolvedTable {
  schemaId: CatalogId;
  id: CatalogId;
  change: Change<TableRow>;
}

const nameKey = (schemaId: CatalogId, name: string) => `${schemaId}\0${name}`;

/** Files of one table a transaction looks up one at a time before it reads the table's listing instead. */
const LIST_AFTER_LOOKUPS = 8;

export class PendingCatalog {
  readonly #entities: { [K in q.EntityKind]: Map<CatalogId, Draft<EntityRows[K]>> } = { schema: new Map(), table: new Map(), view: new Map() };
  readonly #columns = new Map<CatalogId, ColumnsDraft>();
  readonly #dataFiles = new Map<FileId, FileDraft<DataFileRow>>();
  readonly #fileStats = new Map<FileId, ColumnStats[]>();
  readonly #fileMappings = new Map<FileId, NameMapping>();
  readonly #deleteFiles = new Map<FileId, FileDraft<DeleteFileRow>>();
  /** Tables whose live data files (or delete files) at the base snapshot are all loaded into the maps. */
  readonly #dataFilesLoaded = new Set<CatalogId>();
  readonly #deleteFilesLoaded = new Set<CatalogId>();
  /** Data files looked up one at a time, by table (requireLiveDataFile). */
  readonly #fileLookups = new Map<CatalogId, number>();
  readonly #nextRowIds = new Map<CatalogId, number>();
  readonly #baseStats = new Map<CatalogId, TableStatsRow | undefined>();
  readonly #options = new Map<string, string>();
  readonly #restoredTables = new Set<CatalogId>();
  readonly #newCatalogIds = new Set<CatalogId>();
  readonly #takenFileIds = new Set<FileId>();
  #keepEmptySnapshot = false;
  #importedAs: SnapshotId | undefined;
  /** Relations given a name by this transaction, by (schema, name); see renamed(). */
  readonly #named = new Map<string, { kind: RelationKind; id: CatalogId }>();
  /**
   * Names looked up at the base snapshot, which a transaction never moves: what they named there (null:
   * nothing). A transaction registering a file per call resolved its table again each time.
   */
  readonly #relationsAtBase = new Map<string, { kind: RelationKind; id: CatalogId } | null>();
  readonly #schemasAtBase = new Map<string, CatalogId | null>();
  #nextCatalogId: number;
  #nextFileId: number;
  /**
   * The ids the operation in progress reserved, and how many of each it has used: recorded with it, so
   * that a replay reserves (and hands out) the same ones.
   */
  #reserved: TakenIds = noIds();
  #used: Record<IdKind, number> = { catalog: 0, file: 0 };
  /** What the function read of this state through tx.reads(). */
  readonly reads = new ReadSet();

  constructor(
    readonly view: ReadView,
    /** The snapshot the transaction builds on: the newest one in its read view. */
    readonly base: SnapshotId,
    counters: { nextCatalogId: CatalogId; nextFileId: FileId },
    private readonly ids: IdSource,
    /** The snapshot the caller's writes were worked out at: a file removed since is a conflict, not a mistake. */
    private readonly basedOn?: SnapshotId,
  ) {
    this.#nextCatalogId = counters.nextCatalogId;
    this.#nextFileId = counters.nextFileId;
  }

  // ---- read-only views of the pending changes

  get schemas(): ReadonlyMap<CatalogId, Change<SchemaRow>> {
    return this.#entities.schema;
  }

  get tables(): ReadonlyMap<CatalogId, Change<TableRow>> {
    return this.#entities.table;
  }

  get views(): ReadonlyMap<CatalogId, Change<ViewRow>> {
    return this.#entities.view;
  }

  get columns(): ReadonlyMap<CatalogId, TableColumns> {
    return this.#columns;
  }

  get dataFiles(): ReadonlyMap<FileId, FileChange<DataFileRow>> {
    return this.#dataFiles;
  }

  get deleteFiles(): ReadonlyMap<FileId, FileChange<DeleteFileRow>> {
    return this.#deleteFiles;
  }

  /** Column statistics of data files this transaction adds. */
  get fileStats(): ReadonlyMap<FileId, ColumnStats[]> {
    return this.#fileStats;
  }

  /** Name mappings of data files this transaction adds that carry no field ids. */
  get fileMappings(): ReadonlyMap<FileId, NameMapping> {
    return this.#fileMappings;
  }

  // ---- ids

  /** Reserves `n` ids of `kind` for the operation in progress, which then takes them without waiting. */
  async reserve(kind: IdKind, n: number): Promise<void> {
    const ids = await this.ids.take(kind, n);
    append(this.#reserved[kind], ids);
    // The snapshot's counters stay above every id the commit may hold.
    const next = ids.reduce((max, id) => Math.max(max, id + 1), 0);
    if (kind === 'catalog') this.#nextCatalogId = Math.max(this.#nextCatalogId, next);
    else this.#nextFileId = Math.max(this.#nextFileId, next);
  }

  /** Keeps the snapshot's counters at or above these (an import gives the lake's own). */
  raiseCounters(nextCatalogId: number, nextFileId: number): void {
    this.#nextCatalogId = Math.max(this.#nextCatalogId, nextCatalogId);
    this.#nextFileId = Math.max(this.#nextFileId, nextFileId);
  }

  /** A reserved id (see reserve). */
  takeCatalogId(): CatalogId {
    return catalogId(this.takeReserved('catalog'));
  }

  takeFileId(): FileId {
    const id = fileId(this.takeReserved('file'));
    this.#takenFileIds.add(id);
    return id;
  }

  private takeReserved(kind: IdKind): number {
    const id = this.#reserved[kind][this.#used[kind]++];
    if (id === undefined) throw new Error(`an operation took a ${kind} id it had not reserved`);
    return id;
  }

  /** A catalog id for a new schema, table or view. */
  async allocateCatalogId(): Promise<CatalogId> {
    await this.reserve('catalog', 1);
    const id = this.takeCatalogId();
    this.#newCatalogIds.add(id);
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
    const reserved = this.#reserved;
    this.#reserved = noIds();
    this.#used = { catalog: 0, file: 0 };
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
      nextRowIds: this.#nextRowIds,
      baseStats: this.#baseStats,
      options: this.#options,
      nextCatalogId: catalogId(this.#nextCatalogId),
      nextFileId: fileId(this.#nextFileId),
      ops,
      restoredTables: this.#restoredTables,
      newCatalogIds: this.#newCatalogIds,
      takenFileIds: this.#takenFileIds,
      keepEmptySnapshot: this.#keepEmptySnapshot,
      importedAs: this.#importedAs,
      reads: this.reads,
    };
  }

  // ---- resolution: pending changes first, then the base snapshot

  async schemaId(name: string): Promise<CatalogId | undefined> {
    for (const [id, c] of this.schemas) if (c.next?.name === name) return id;
    let id = this.#schemasAtBase.get(name);
    if (id === undefined) this.#schemasAtBase.set(name, (id = (await q.schemaIdByName(this.view, this.base, name)) ?? null));
    if (id === null) return undefined;
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
  load<K extends q.EntityKind>(kind: K, id: CatalogId): Promise<Change<EntityRows[K]>> {
    return this.draft(kind, id);
  }

  private async draft<K extends q.EntityKind>(kind: K, id: CatalogId): Promise<Draft<EntityRows[K]>> {
    const map: Map<CatalogId, Draft<EntityRows[K]>> = this.#entities[kind];
    let c = map.get(id);
    if (!c) {
      c = unchanged(await AT[kind](this.view, this.base, id));
      map.set(id, c);
    }
    return c;
  }

  loadSchema = (id: CatalogId) => this.load('schema', id);
  loadTable = (id: CatalogId) => this.load('table', id);
  loadView = (id: CatalogId) => this.load('view', id);

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
    const key = nameKey(schemaId, name);
    const named = this.#named.get(key);
    if (named !== undefined) {
      const next = (named.kind === 'table' ? this.tables : this.views).get(named.id)?.next;
      if (next?.schemaId === schemaId && next.name === name) return named;
    }
    let rel = this.#relationsAtBase.get(key);
    if (rel === undefined) this.#relationsAtBase.set(key, (rel = (await q.relationByName(this.view, this.base, schemaId, name)) ?? null));
    if (rel === null) return undefined;
    const c = rel.kind === 'table' ? await this.loadTable(rel.id) : await this.loadView(rel.id);
    return c.next?.schemaId === schemaId && c.next.name === name ? rel : undefined;
  }

  /**
   * Records that relation `id` now has the name its pending change gives it (after a create, a rename, a
   * restore): relation() looks names up here instead of scanning every pending change, which made a
   * transaction creating n tables cost n².
   */
  private renamed(kind: RelationKind, id: CatalogId): void {
    const next = (kind === 'table' ? this.tables : this.views).get(id)?.next;
    if (next) this.#named.set(nameKey(next.schemaId, next.name), { kind, id });
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

  loadColumns(tableId: CatalogId): Promise<TableColumns> {
    return this.columnDrafts(tableId);
  }

  private async columnDrafts(tableId: CatalogId): Promise<ColumnsDraft> {
    let cols = this.#columns.get(tableId);
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
      this.#columns.set(tableId, cols);
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
    return { tableId: t.id, id, change, cols, live: live.length };
  }

  // ---- files

  async nextRowId(tableId: CatalogId): Promise<number> {
    let next = this.#nextRowIds.get(tableId);
    if (next === undefined) {
      next = (await this.tableStats(tableId))?.nextRowId ?? 0;
      this.#nextRowIds.set(tableId, next);
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
    let c = this.#dataFiles.get(fid);
    if (!c && !this.#dataFilesLoaded.has(tableId)) {
      // A transaction that removes many files of a table (a compaction, an overwrite) reads its listing
      // once: a file looked up alone costs two LevelDB iterators, ~0.2 ms, against ~1 µs a file listed.
      const n = (this.#fileLookups.get(tableId) ?? 0) + 1;
      this.#fileLookups.set(tableId, n);
      if (n >= LIST_AFTER_LOOKUPS) {
        await this.loadDataFiles(tableId);
        c = this.#dataFiles.get(fid);
      }
    }
    // Not live at the base (or not this table's): what it is, read alone, says why.
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
      this.#dataFiles.set(fid, c);
    }
    if (c.tableId !== tableId) throw invalid(`data file ${fid} belongs to table ${c.tableId}, not to ${quote(schema, table)}`);
    if (c.next === null) throw notFound(`data file ${fid} of ${quote(schema, table)} is already removed by this transaction`);
    return c;
  }

  async loadDataFiles(tableId: CatalogId): Promise<void> {
    if (this.#dataFilesLoaded.has(tableId)) return;
    if (await this.hasNoLiveFiles(tableId)) return void this.#dataFilesLoaded.add(tableId);
    for await (const batch of dataFilesAt(this.view, this.base, tableId)) {
      for (const v of batch) if (!this.#dataFiles.has(v.id)) this.#dataFiles.set(v.id, { tableId, ...unchanged(v) });
    }
    this.#dataFilesLoaded.add(tableId);
  }

  async loadDeleteFiles(tableId: CatalogId): Promise<void> {
    if (this.#deleteFilesLoaded.has(tableId)) return;
    if (await this.hasNoLiveFiles(tableId)) return void this.#deleteFilesLoaded.add(tableId);
    for await (const batch of deleteFilesAt(this.view, this.base, tableId)) {
      for (const v of batch) if (!this.#deleteFiles.has(v.id)) this.#deleteFiles.set(v.id, { tableId, ...unchanged(v) });
    }
    this.#deleteFilesLoaded.add(tableId);
  }

  /**
   * Whether the table's stats (the base snapshot's: the newest) count no live data file, and so no live
   * delete file either: listing is skipped, which a cascade over thousands of fresh tables would otherwise pay.
   */
  private async hasNoLiveFiles(tableId: CatalogId): Promise<boolean> {
    return (await this.tableStats(tableId))?.dataFiles === 0;
  }

  private async tableStats(tableId: CatalogId): Promise<TableStatsRow | undefined> {
    if (!this.#baseStats.has(tableId)) this.#baseStats.set(tableId, await q.tableStats(this.view, tableId));
    return this.#baseStats.get(tableId);
  }

  // ---- changes: each called once everything it needs is loaded, and never fails for a caller's reason

  createSchema(id: CatalogId, row: Row<SchemaRow>): void {
    this.#entities.schema.set(id, { base: undefined, next: row });
  }

  /** Ends a schema (resolved by requireSchema); what it holds the caller dropped first. */
  dropSchema(id: CatalogId): void {
    this.#entities.schema.get(id)!.next = null;
  }

  /** A new table with its columns (checked trees, placed under ids from 1 in order), no files, and no rows yet. */
  createTable(id: CatalogId, row: Row<TableRow>, columns: readonly ColumnTree[]): void {
    this.#entities.table.set(id, { base: undefined, next: row });
    this.renamed('table', id);
    let next = 1;
    const rows = columns.flatMap((t) => placed(t, () => columnId(next++), null));
    this.#columns.set(id, { changes: new Map(rows.map(([colId, r]) => [colId, { base: undefined, next: r }])), nextId: next });
    this.#dataFilesLoaded.add(id);
    this.#deleteFilesLoaded.add(id);
    this.#nextRowIds.set(id, 0);
  }

  /** Renames a table (resolved by requireTable). */
  renameTable(id: CatalogId, name: string): void {
    const c = this.#entities.table.get(id)!;
    c.next = { ...c.next!, name };
    this.renamed('table', id);
  }

  createView(id: CatalogId, row: Row<ViewRow>): void {
    this.#entities.view.set(id, { base: undefined, next: row });
    this.renamed('view', id);
  }

  /**
   * Makes a loaded schema, table or view `next` whole (null: gone), whatever it was: a restore brings an old
   * version back, an import applies the lake's.
   */
  replaceEntity<K extends q.EntityKind>(kind: K, id: CatalogId, next: Row<EntityRows[K]> | null): void {
    const map: Map<CatalogId, Draft<EntityRows[K]>> = this.#entities[kind];
    map.get(id)!.next = next;
    if (kind !== 'schema') this.renamed(kind as RelationKind, id);
  }

  /** Adds a column (a checked tree: its fields too) to a table whose columns are loaded; returns its id. */
  addColumn(tableId: CatalogId, tree: ColumnTree): ColumnId {
    const cols = this.#columns.get(tableId)!;
    const rows = placed(tree, () => columnId(cols.nextId++), null);
    for (const [id, row] of rows) cols.changes.set(id, { base: undefined, next: row });
    return rows[0]![0];
  }

  /** Drops a live column of a loaded table, and its fields at every depth. */
  dropColumn(tableId: CatalogId, id: ColumnId): void {
    const cols = this.#columns.get(tableId)!;
    for (const field of descendants(cols, id)) cols.changes.get(field)!.next = null;
    cols.changes.get(id)!.next = null;
  }

  renameColumn(tableId: CatalogId, id: ColumnId, name: string): void {
    const c = this.#columns.get(tableId)!.changes.get(id)!;
    c.next = { ...c.next!, name };
  }

  /** Gives a live column a type (its caller checked the widening). */
  retypeColumn(tableId: CatalogId, id: ColumnId, type: string): void {
    const c = this.#columns.get(tableId)!.changes.get(id)!;
    c.next = { ...c.next!, type };
  }

  /**
   * Makes column `id` of a table whose columns are loaded `next` whole (null: gone), whatever it was, keeping
   * new column ids above it: a restore brings an old version back, an import applies the lake's.
   */
  replaceColumn(tableId: CatalogId, id: ColumnId, next: Row<ColumnRow> | null): void {
    const cols = this.#columns.get(tableId)!;
    const c = cols.changes.get(id);
    if (c !== undefined) c.next = next;
    else cols.changes.set(id, { base: undefined, next });
    cols.nextId = Math.max(cols.nextId, id + 1);
  }

  /**
   * A new data file (`row.mappingId` naming `extras.mapping`, when it has one) of a table whose next row id
   * was read (nextRowId): that moves past its rows (a restored file's rows are below it already).
   */
  addDataFile(id: FileId, tableId: CatalogId, row: Row<DataFileRow>, extras: DataFileExtras = {}): void {
    const next = this.#nextRowIds.get(tableId);
    if (next === undefined) throw new Error(`a data file was added to table ${tableId}, whose next row id was not read`);
    if (extras.mapping !== undefined) this.#fileMappings.set(id, extras.mapping);
    this.#dataFiles.set(id, { tableId, base: undefined, next: row });
    if (extras.stats !== undefined) this.#fileStats.set(id, extras.stats);
    this.#nextRowIds.set(tableId, Math.max(next, extras.rowIdEnd ?? row.rowIdStart + row.recordCount));
  }

  /** Ends a live data file (from requireLiveDataFile) and its live delete files (the table's are loaded). */
  retireDataFile(id: FileId): void {
    const file = this.#dataFiles.get(id)!;
    file.next = null;
    for (const [did, d] of this.#deleteFiles) {
      if (d.tableId !== file.tableId || d.next?.dataFileId !== id) continue;
      if (d.base === undefined && !d.endsAtCommit) this.#deleteFiles.delete(did);
      else if (d.base !== undefined) d.next = null;
    }
    if (file.base === undefined) this.#dataFiles.delete(id);
  }

  /**
   * Deletes rows of a live data file (from requireLiveDataFile; the table's delete files loaded) by delete
   * file `id`. Delete files are cumulative (as in DuckLake): the new one holds every deleted row of its data
   * file, so it replaces the one before it. A delete of every row (`deletesAll`) retires the data file itself;
   * the delete file then never becomes visible, but is still recorded (ending at this commit) so that
   * reclamation knows the engine wrote it, unless the data file is new in this transaction too and
   * everything cancels out.
   */
  deleteRows(id: FileId, row: Row<DeleteFileRow>, deletesAll: boolean): void {
    const data = this.#dataFiles.get(row.dataFileId)!;
    for (const c of this.#deleteFiles.values()) {
      if (c.tableId === data.tableId && c.next?.dataFileId === row.dataFileId) c.next = null;
    }
    if (!deletesAll || data.base !== undefined) this.#deleteFiles.set(id, { tableId: data.tableId, base: undefined, next: row, endsAtCommit: deletesAll });
    if (deletesAll) this.retireDataFile(row.dataFileId);
  }

  /**
   * A new delete file as it is, replacing nothing: a restore brings back the set a snapshot had, an import
   * the lake's (each checks that one stays live per data file). `endsAtCommit`: recorded, never visible.
   */
  addDeleteFile(id: FileId, tableId: CatalogId, row: Row<DeleteFileRow>, endsAtCommit = false): void {
    this.#deleteFiles.set(id, { tableId, base: undefined, next: row, ...(endsAtCommit ? { endsAtCommit } : {}) });
  }

  /** Ends loaded files of one kind, and nothing with them (a restore ends what the old snapshot lacks). */
  endFiles(kind: keyof FileRows, ids: Iterable<FileId>): void {
    const files = this.files(kind);
    for (const id of ids) files.get(id)!.next = null;
  }

  /** Ends a file an imported snapshot ends: `base`, its version live at the base snapshot. */
  endImportedFile<K extends keyof FileRows>(kind: K, tableId: CatalogId, id: FileId, base: Version<FileRows[K]>): void {
    this.files(kind).set(id, { tableId, base, next: null });
  }

  private files<K extends keyof FileRows>(kind: K): Map<FileId, FileDraft<FileRows[K]>> {
    return (kind === 'data' ? this.#dataFiles : this.#deleteFiles) as Map<FileId, FileDraft<FileRows[K]>>;
  }

  setOption(key: string, value: string): void {
    this.#options.set(key, value);
  }

  /** The commit says the table was restored (DuckLake's changes_made). */
  restored(tableId: CatalogId): void {
    this.#restoredTables.add(tableId);
  }

  /** The commit is an imported lake's snapshot: it takes the lake's id, and is written even if nothing changed. */
  importAs(snapshot: SnapshotId): void {
    this.#importedAs = snapshot;
    this.#keepEmptySnapshot = true;
  }

  // ---- drops: load everything first, return the mutation to apply once every load has succeeded

  async prepareDropTable(tableId: CatalogId): Promise<() => void> {
    const table = await this.draft('table', tableId);
    const cols = await this.columnDrafts(tableId);
    await this.loadDataFiles(tableId);
    await this.loadDeleteFiles(tableId);
    return () => {
      table.next = null;
      for (const c of cols.changes.values()) c.next = null;
      for (const files of [this.#dataFiles, this.#deleteFiles] as Map<FileId, FileDraft<unknown>>[]) {
        for (const [id, c] of files) {
          if (c.tableId !== tableId) continue;
          if (c.base === undefined) files.delete(id);
          else c.next = null;
        }
      }
    };
  }

  prepareDropView(viewId: CatalogId): () => void {
    const view = this.#entities.view.get(viewId)!;
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
