// The `tx` a caller's function receives. It reads the catalog as of the snapshot it builds on (through one
// read view), keeps what the caller asks for as pending Changes, and never writes: the catalog turns the
// pending state into one log entry when the function returns (see plan.ts).
//
// Every operation validates and reads first and mutates pending state last, so an operation that throws
// leaves the transaction exactly as it was and the caller may catch the error and go on.
import { randomUUID } from 'node:crypto';
import { type CatalogId, type ColumnId, catalogId, columnId, type FileId, fileId, type SnapshotId } from '../../keys/ids.js';
import type { ColumnRow } from '../../keys/columns.js';
import type { DataFileRow } from '../../keys/data-files.js';
import type { DeleteFileRow } from '../../keys/delete-files.js';
import type { RelationKind, TableRow, ViewRow } from '../../keys/relations.js';
import type { SchemaRow } from '../../keys/schemas.js';
import { isVisible } from '../../keys/visibility.js';
import { StrataError } from '../errors.js';
import { listed, quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { dataFile, type DataFileVersion, dataFilesAt, deleteFilesAt, type DeleteFileVersion } from '../read/file-listing.js';
import { type Change, type Row, unchanged } from './change.js';
import {
  checkColumnType,
  checkCount,
  checkFilePath,
  checkName,
  checkOptionalCount,
  checkOptionalText,
} from '../arguments.js';

export interface ColumnSpec {
  name: string;
  type: string;
  /** Default true. */
  nullable?: boolean;
  /** A default value expression, as text. */
  default?: string | null;
}

export interface DataFileSpec {
  /** Relative to the catalog's data path. */
  path: string;
  recordCount: number;
  fileSizeBytes: number;
  footerSize?: number | null;
  /** Default 'parquet'. */
  format?: string;
}

export interface DeleteFileSpec {
  dataFileId: number;
  path: string;
  deleteCount: number;
  fileSizeBytes: number;
  format?: string;
}

export type FileChange<T> = Change<T> & {
  tableId: CatalogId;
  /** A file registered and retired by the same commit: kept in the catalog so reclamation knows it. */
  endsAtCommit?: boolean;
};

export interface TableColumns {
  changes: Map<ColumnId, Change<ColumnRow>>;
  nextId: number;
}

/** Everything plan.ts needs to turn the transaction into mutations. */
export interface PendingState {
  base: SnapshotId;
  schemas: ReadonlyMap<CatalogId, Change<SchemaRow>>;
  tables: ReadonlyMap<CatalogId, Change<TableRow>>;
  views: ReadonlyMap<CatalogId, Change<ViewRow>>;
  columns: ReadonlyMap<CatalogId, TableColumns>;
  dataFiles: ReadonlyMap<FileId, FileChange<DataFileRow>>;
  deleteFiles: ReadonlyMap<FileId, FileChange<DeleteFileRow>>;
  nextRowIds: ReadonlyMap<CatalogId, number>;
  options: ReadonlyMap<string, string>;
  nextCatalogId: CatalogId;
  nextFileId: FileId;
  /** The operations that made this state, in order: what a rebase replays. */
  ops: readonly RecordedOp[];
  restoredTables: ReadonlySet<CatalogId>;
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
  | 'setOption';

export interface RecordedOp {
  name: OpName;
  args: unknown[];
  result: unknown;
}

const notFound = (message: string) => new StrataError('NOT_FOUND', message);
const alreadyExists = (message: string) => new StrataError('ALREADY_EXISTS', message);
const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);


interface ResolvedTable {
  schemaId: CatalogId;
  id: CatalogId;
  change: Change<TableRow>;
}

export class Transaction {
  private readonly schemas = new Map<CatalogId, Change<SchemaRow>>();
  private readonly tables = new Map<CatalogId, Change<TableRow>>();
  private readonly views = new Map<CatalogId, Change<ViewRow>>();
  private readonly columns = new Map<CatalogId, TableColumns>();
  private readonly dataFiles = new Map<FileId, FileChange<DataFileRow>>();
  private readonly deleteFiles = new Map<FileId, FileChange<DeleteFileRow>>();
  /** Tables whose live data files (or delete files) at the base snapshot are all loaded into the maps. */
  private readonly dataFilesLoaded = new Set<CatalogId>();
  private readonly deleteFilesLoaded = new Set<CatalogId>();
  private readonly nextRowIds = new Map<CatalogId, number>();
  private readonly options = new Map<string, string>();
  private nextCatalogId: number;
  private nextFileId: number;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly ops: RecordedOp[] = [];
  private readonly restoredTables = new Set<CatalogId>();
  private sealed = false;

  constructor(
    private readonly view: ReadView,
    /** The snapshot this transaction builds on: the newest one in its read view. */
    readonly base: SnapshotId,
    counters: { nextCatalogId: CatalogId; nextFileId: FileId },
  ) {
    this.nextCatalogId = counters.nextCatalogId;
    this.nextFileId = counters.nextFileId;
  }

  // ---------------------------------------------------------------- schemas

  createSchema(name: string): Promise<CatalogId> {
    return this.op('createSchema', [name], async () => {
      checkName('schema name', name);
      if ((await this.schemaId(name)) !== undefined) throw alreadyExists(`schema ${quote(name)} already exists`);
      const id = this.allocateCatalogId();
      this.schemas.set(id, { base: undefined, next: { name, uuid: randomUUID() } });
      return id;
    });
  }

  dropSchema(name: string, options: { cascade?: boolean } = {}): Promise<void> {
    return this.op('dropSchema', [name, options], async () => {
      const schemaId = await this.requireSchema(name);
      const relations = await this.relations(schemaId);
      if (relations.size > 0 && options.cascade !== true) {
        throw new StrataError(
          'DEPENDENT_OBJECTS',
          `schema ${quote(name)} is not empty: it holds ${listed([...relations.keys()])}; ` +
            'drop those first, or pass { cascade: true } to drop them with it',
        );
      }
      const dropped: (() => void)[] = [];
      for (const rel of relations.values()) {
        dropped.push(rel.kind === 'table' ? await this.prepareDropTable(rel.id) : this.prepareDropView(rel.id));
      }
      for (const apply of dropped) apply();
      this.schemas.get(schemaId)!.next = null;
    });
  }

  // ---------------------------------------------------------------- tables

  createTable(schema: string, name: string, columns: ColumnSpec[]): Promise<CatalogId> {
    return this.op('createTable', [schema, name, columns], async () => {
      checkName('table name', name);
      if (!Array.isArray(columns) || columns.length === 0) {
        throw invalid(`table ${quote(schema, name)} needs at least one column, got ${JSON.stringify(columns)}`);
      }
      const rows = columns.map((c, i) => this.columnRow(c, i + 1));
      const seen = new Set<string>();
      for (const r of rows) {
        if (seen.has(r.name)) throw invalid(`table ${quote(schema, name)} names column ${quote(r.name)} twice`);
        seen.add(r.name);
      }
      const schemaId = await this.requireSchema(schema);
      await this.requireFreeRelationName(schemaId, schema, name);
      const id = this.allocateCatalogId();
      this.tables.set(id, { base: undefined, next: { schemaId, name, uuid: randomUUID() } });
      this.columns.set(id, {
        changes: new Map(rows.map((row, i) => [columnId(i + 1), { base: undefined, next: row }])),
        nextId: rows.length + 1,
      });
      this.dataFilesLoaded.add(id);
      this.deleteFilesLoaded.add(id);
      this.nextRowIds.set(id, 0);
      return id;
    });
  }

  renameTable(schema: string, from: string, to: string): Promise<void> {
    return this.op('renameTable', [schema, from, to], async () => {
      checkName('new table name', to);
      const t = await this.requireTable(schema, from);
      if (from === to) return;
      await this.requireFreeRelationName(t.schemaId, schema, to);
      t.change.next = { ...t.change.next!, name: to };
    });
  }

  dropTable(schema: string, name: string): Promise<void> {
    return this.op('dropTable', [schema, name], async () => {
      const t = await this.requireTable(schema, name);
      (await this.prepareDropTable(t.id))();
    });
  }

  // ---------------------------------------------------------------- columns

  addColumn(schema: string, table: string, column: ColumnSpec): Promise<ColumnId> {
    return this.op('addColumn', [schema, table, column], async () => {
      const t = await this.requireTable(schema, table);
      const cols = await this.loadColumns(t.id);
      const live = [...cols.changes.values()].filter((c) => c.next !== null);
      const row = this.columnRow(column, Math.max(0, ...live.map((c) => c.next!.order)) + 1);
      if (live.some((c) => c.next!.name === row.name)) {
        throw alreadyExists(`column ${quote(row.name)} already exists in table ${quote(schema, table)}`);
      }
      const id = columnId(cols.nextId++);
      cols.changes.set(id, { base: undefined, next: row });
      return id;
    });
  }

  dropColumn(schema: string, table: string, column: string): Promise<void> {
    return this.op('dropColumn', [schema, table, column], async () => {
      const { change, live } = await this.requireColumn(schema, table, column);
      if (live === 1) {
        throw invalid(`column ${quote(column)} is the only column of ${quote(schema, table)}; drop the table instead`);
      }
      change.next = null;
    });
  }

  renameColumn(schema: string, table: string, from: string, to: string): Promise<void> {
    return this.op('renameColumn', [schema, table, from, to], async () => {
      checkName('new column name', to);
      const { change, cols } = await this.requireColumn(schema, table, from);
      if (from === to) return;
      if ([...cols.changes.values()].some((c) => c.next?.name === to)) {
        throw alreadyExists(`column ${quote(to)} already exists in table ${quote(schema, table)}`);
      }
      change.next = { ...change.next!, name: to };
    });
  }

  alterColumnType(schema: string, table: string, column: string, type: string): Promise<void> {
    return this.op('alterColumnType', [schema, table, column, type], async () => {
      const checked = checkColumnType(`type of column ${quote(column)}`, type);
      const { change } = await this.requireColumn(schema, table, column);
      change.next = { ...change.next!, type: checked };
    });
  }

  // ---------------------------------------------------------------- views

  createView(schema: string, name: string, sql: string, options: { dialect?: string } = {}): Promise<CatalogId> {
    return this.op('createView', [schema, name, sql, options], async () => {
      checkName('view name', name);
      if (typeof sql !== 'string' || sql.trim() === '') throw invalid(`view ${quote(schema, name)} needs its SQL text`);
      const dialect = checkOptionalText('view dialect', options.dialect) ?? 'duckdb';
      const schemaId = await this.requireSchema(schema);
      await this.requireFreeRelationName(schemaId, schema, name);
      const id = this.allocateCatalogId();
      this.views.set(id, { base: undefined, next: { schemaId, name, uuid: randomUUID(), dialect, sql } });
      return id;
    });
  }

  dropView(schema: string, name: string): Promise<void> {
    return this.op('dropView', [schema, name], async () => {
      const schemaId = await this.requireSchema(schema);
      const rel = (await this.relations(schemaId)).get(name);
      if (rel?.kind !== 'view') {
        throw notFound(`view ${quote(schema, name)} does not exist${rel ? ` (${quote(name)} is a table)` : ''}`);
      }
      this.prepareDropView(rel.id)();
    });
  }

  // ---------------------------------------------------------------- files

  addDataFile(schema: string, table: string, file: DataFileSpec): Promise<FileId> {
    return this.op('addDataFile', [schema, table, file], async () => {
      const row = {
        path: checkFilePath('data file path', file?.path),
        format: checkOptionalText('data file format', file.format) ?? 'parquet',
        recordCount: checkCount('recordCount', file.recordCount),
        fileSizeBytes: checkCount('fileSizeBytes', file.fileSizeBytes),
        footerSize: checkOptionalCount('footerSize', file.footerSize),
      };
      const t = await this.requireTable(schema, table);
      const rowIdStart = await this.nextRowId(t.id);
      const id = this.allocateFileId();
      this.nextRowIds.set(t.id, rowIdStart + row.recordCount);
      this.dataFiles.set(id, { tableId: t.id, base: undefined, next: { ...row, rowIdStart } });
      return id;
    });
  }

  removeDataFile(schema: string, table: string, dataFileId: number): Promise<void> {
    return this.op('removeDataFile', [schema, table, dataFileId], async () => {
      const t = await this.requireTable(schema, table);
      const file = await this.requireLiveDataFile(schema, table, t.id, dataFileId);
      await this.loadDeleteFiles(t.id);
      this.retireDataFile(dataFileId as FileId, file);
    });
  }

  addDeleteFile(schema: string, table: string, spec: DeleteFileSpec): Promise<FileId> {
    return this.op('addDeleteFile', [schema, table, spec], async () => {
      const row = {
        path: checkFilePath('delete file path', spec?.path),
        format: checkOptionalText('delete file format', spec.format) ?? 'parquet',
        deleteCount: checkCount('deleteCount', spec.deleteCount, 1),
        fileSizeBytes: checkCount('fileSizeBytes', spec.fileSizeBytes),
      };
      const t = await this.requireTable(schema, table);
      const dataFile = await this.requireLiveDataFile(schema, table, t.id, spec.dataFileId);
      const dataFileId = spec.dataFileId as FileId;
      const records = dataFile.next!.recordCount;
      if (row.deleteCount > records) {
        throw invalid(`deleteCount ${row.deleteCount} exceeds the ${records} rows of data file ${dataFileId}`);
      }
      await this.loadDeleteFiles(t.id);
      // Delete files are cumulative (as in DuckLake): the new one holds every deleted row of its data file,
      // so it replaces the one before it.
      for (const c of this.deleteFiles.values()) {
        if (c.tableId === t.id && c.next?.dataFileId === dataFileId) c.next = null;
      }
      const id = this.allocateFileId();
      const deletesAll = row.deleteCount === records;
      // A delete of every row retires the data file itself. The delete file then never becomes visible, but
      // is still recorded (ending at this commit) so that reclamation knows the engine wrote it, unless
      // the data file is new in this transaction too and everything cancels out.
      if (!deletesAll || dataFile.base !== undefined) {
        this.deleteFiles.set(id, { tableId: t.id, base: undefined, next: { ...row, dataFileId }, endsAtCommit: deletesAll });
      }
      if (deletesAll) this.retireDataFile(dataFileId, dataFile);
      return id;
    });
  }

  // ---------------------------------------------------------------- restore

  /**
   * Makes the table's columns and files what they were at snapshot `at`, as part of this transaction: history
   * only moves forward, so the old state comes back as new versions. The table keeps its current name.
   */
  restoreTable(schema: string, table: string, at: number): Promise<void> {
    return this.op('restoreTable', [schema, table, at], async () => {
      const snapshot = await this.requireOlderSnapshot(at);
      const t = await this.requireTable(schema, table);
      if ((await q.tableAt(this.view, snapshot, t.id)) === undefined) {
        throw notFound(`table ${quote(schema, table)} (id ${t.id}) did not exist at snapshot ${snapshot}; nothing to restore`);
      }
      (await this.prepareRestoreContents(t.id, snapshot))();
      this.restoredTables.add(t.id);
    });
  }

  /**
   * Makes the whole catalog what it was at snapshot `at`: schemas, tables and views that existed then come
   * back (with their ids), those created since are dropped, and every table's columns and files are restored.
   */
  restoreCatalog(at: number): Promise<void> {
    return this.op('restoreCatalog', [at], async () => {
      const snapshot = await this.requireOlderSnapshot(at);
      const steps: (() => void)[] = [];
      const restoreAll = async <T extends { end: SnapshotId | null }>(
        map: Map<CatalogId, Change<T>>,
        tag: 'schema' | 'table' | 'view',
        ids: Set<CatalogId>,
        fetch: (view: ReadView, s: SnapshotId, id: CatalogId) => Promise<q.Version<T> | undefined>,
      ) => {
        for (const id of ids) {
          const c = await this.load(map, id, fetch);
          const old = unchanged(await fetch(this.view, snapshot, id));
          if (tag === 'table') {
            steps.push(old.next === null ? await this.prepareDropTable(id) : await this.prepareRestoreContents(id, snapshot));
          }
          steps.push(() => {
            c.next = old.next;
          });
        }
      };
      await restoreAll(this.schemas, 'schema', await this.idsAtEither('schema', snapshot), q.schemaAt);
      await restoreAll(this.tables, 'table', await this.idsAtEither('table', snapshot), q.tableAt);
      await restoreAll(this.views, 'view', await this.idsAtEither('view', snapshot), q.viewAt);
      for (const apply of steps) apply();
    });
  }

  private async requireOlderSnapshot(at: unknown): Promise<SnapshotId> {
    const id = checkCount('snapshot', at) as SnapshotId;
    if (id <= this.base) await q.assertRetained(this.view, id);
    if (id > this.base || (await q.snapshotRow(this.view, id)) === undefined) {
      throw new StrataError('SNAPSHOT_NOT_FOUND', `snapshot ${id} does not exist (the newest is ${this.base}); restore from an existing one`, {
        snapshot: id,
      });
    }
    return id;
  }

  /** Ids of the entities of one kind visible at `at` or now (the base), plus those created in this transaction. */
  private async idsAtEither(kind: q.EntityKind, at: SnapshotId): Promise<Set<CatalogId>> {
    const ids = new Set<CatalogId>();
    for await (const batch of q.entityVersions(this.view, kind)) {
      for (const v of batch) if (isVisible(v.begin, v.row.end, at) || isVisible(v.begin, v.row.end, this.base)) ids.add(v.id);
    }
    const pending = kind === 'schema' ? this.schemas : kind === 'table' ? this.tables : this.views;
    for (const [id, c] of pending as Map<CatalogId, Change<unknown>>) if (c.base === undefined) ids.add(id);
    return ids;
  }

  /** Loads what restoring a table's columns and files to `at` needs; returns the change to apply. */
  private async prepareRestoreContents(tableId: CatalogId, at: SnapshotId): Promise<() => void> {
    const cols = await this.loadColumns(tableId);
    const oldCols = await q.columnsOf(this.view, tableId, at);
    await this.loadDataFiles(tableId);
    await this.loadDeleteFiles(tableId);
    const oldFiles: DataFileVersion[] = [];
    for await (const batch of dataFilesAt(this.view, at, tableId)) oldFiles.push(...batch);
    const oldDeletes: DeleteFileVersion[] = [];
    for await (const batch of deleteFilesAt(this.view, at, tableId)) oldDeletes.push(...batch);
    const rowIdNext = await this.nextRowId(tableId);
    return () => {
      const wanted = new Map(oldCols.map((v) => [v.id, unchanged<ColumnRow>(v).next!]));
      for (const [id, c] of cols.changes) if (!wanted.has(id)) c.next = null;
      for (const [id, row] of wanted) {
        const c = cols.changes.get(id);
        if (c) c.next = row;
        else cols.changes.set(id, { base: undefined, next: row });
      }
      // Files: retire what was not there at `at`; bring back what was, under new file ids (a file row is
      // written once) pointing at the same objects and keeping their row ids. A file counts as "there" by
      // what it is (path and rows), so restoring twice changes nothing the second time.
      const dataKey = (r: DataFileRow | Row<DataFileRow>) => `${r.path}\0${r.rowIdStart}\0${r.recordCount}`;
      const deleteKey = (r: DeleteFileRow | Row<DeleteFileRow>, dataPath: string) => `${r.path}\0${r.deleteCount}\0${dataPath}`;
      const liveNow = <T>(m: Map<FileId, FileChange<T>>) => [...m].filter(([, c]) => c.tableId === tableId && c.next !== null);
      const dataNow = new Map(liveNow(this.dataFiles).map(([id, c]) => [dataKey(c.next!), id]));
      const pathOfNow = new Map(liveNow(this.dataFiles).map(([id, c]) => [id, c.next!.path]));
      const pathOfOld = new Map(oldFiles.map((f) => [f.id, f.row.path]));
      const deletesNow = new Map(liveNow(this.deleteFiles).map(([id, c]) => [deleteKey(c.next!, pathOfNow.get(c.next!.dataFileId) ?? ''), id]));
      const fileIds = new Map<FileId, FileId>(); // id at `at` → id now
      for (const f of oldFiles) {
        const now = dataNow.get(dataKey(f.row));
        if (now !== undefined) {
          fileIds.set(f.id, now);
          dataNow.delete(dataKey(f.row));
        } else {
          const id = this.allocateFileId();
          fileIds.set(f.id, id);
          this.dataFiles.set(id, { tableId, base: undefined, next: unchanged<DataFileRow>(f).next! });
        }
      }
      for (const d of oldDeletes) {
        const k = deleteKey(d.row, pathOfOld.get(d.row.dataFileId) ?? '');
        if (deletesNow.delete(k)) continue;
        const row = unchanged<DeleteFileRow>(d).next!;
        this.deleteFiles.set(this.allocateFileId(), {
          tableId,
          base: undefined,
          next: { ...row, dataFileId: fileIds.get(row.dataFileId) ?? row.dataFileId },
        });
      }
      for (const id of dataNow.values()) this.dataFiles.get(id)!.next = null;
      for (const id of deletesNow.values()) this.deleteFiles.get(id)!.next = null;
      this.nextRowIds.set(tableId, rowIdNext);
    };
  }

  // ---------------------------------------------------------------- options

  setOption(key: string, value: string): Promise<void> {
    return this.op('setOption', [key, value], async () => {
      checkName('option key', key);
      if (typeof value !== 'string') throw invalid(`option ${quote(key)} takes a string value, got ${typeof value}`);
      this.options.set(key, value);
    });
  }

  // ---------------------------------------------------------------- for the catalog

  /** Ends the transaction: waits for operations still running, then refuses any further call. */
  async seal(): Promise<PendingState> {
    await this.queue.catch(() => undefined);
    this.sealed = true;
    return {
      base: this.base,
      schemas: this.schemas,
      tables: this.tables,
      views: this.views,
      columns: this.columns,
      dataFiles: this.dataFiles,
      deleteFiles: this.deleteFiles,
      nextRowIds: this.nextRowIds,
      options: this.options,
      nextCatalogId: catalogId(this.nextCatalogId),
      nextFileId: fileId(this.nextFileId),
      ops: this.ops,
      restoredTables: this.restoredTables,
    };
  }

  // ---------------------------------------------------------------- internals

  /**
   * Runs operations one at a time even if the caller does not await each, so each sees the last one's
   * effects, and records each that succeeds (with a copy of its arguments, taken when it was called) so
   * that a commit that loses the race to another writer can replay them on the newer state.
   */
  private op<T>(name: OpName, args: unknown[], fn: () => Promise<T>): Promise<T> {
    if (this.sealed) {
      return Promise.reject(invalid('this transaction has ended; make changes inside the function passed to transaction()'));
    }
    let copy: unknown[];
    try {
      copy = structuredClone(args);
    } catch {
      // Arguments that cannot be copied (functions, …) fail validation inside fn and are never recorded.
      copy = args;
    }
    const recorded = async () => {
      const result = await fn();
      this.ops.push({ name, args: copy, result });
      return result;
    };
    const run = this.queue.then(recorded, recorded);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private allocateCatalogId(): CatalogId {
    return catalogId(this.nextCatalogId++);
  }

  private allocateFileId(): FileId {
    return fileId(this.nextFileId++);
  }

  private columnRow(c: ColumnSpec, order: number): Row<ColumnRow> {
    if (c === null || typeof c !== 'object') throw invalid(`a column is { name, type }, got ${JSON.stringify(c)}`);
    const name = checkName('column name', c.name);
    if (c.nullable !== undefined && typeof c.nullable !== 'boolean') {
      throw invalid(`nullable of column ${quote(name)} must be a boolean`);
    }
    return {
      name,
      type: checkColumnType(`type of column ${quote(name)}`, c.type),
      order,
      nullsAllowed: c.nullable ?? true,
      defaultValue: checkOptionalText(`default of column ${quote(name)}`, c.default),
      parentColumn: null,
    };
  }

  // ---- resolution: pending changes first, then the base snapshot

  private async schemaId(name: string): Promise<CatalogId | undefined> {
    for (const [id, c] of this.schemas) if (c.next?.name === name) return id;
    const id = await q.schemaIdByName(this.view, this.base, name);
    if (id === undefined) return undefined;
    const c = await this.loadSchema(id);
    return c.next?.name === name ? id : undefined;
  }

  private async requireSchema(name: string): Promise<CatalogId> {
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
  private async load<T extends { end: SnapshotId | null }>(
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

  private loadSchema = (id: CatalogId) => this.load(this.schemas, id, q.schemaAt);
  private loadTable = (id: CatalogId) => this.load(this.tables, id, q.tableAt);
  private loadView = (id: CatalogId) => this.load(this.views, id, q.viewAt);

  /** The tables and views in a schema after the pending changes, by name. */
  private async relations(schemaId: CatalogId): Promise<Map<string, { kind: RelationKind; id: CatalogId }>> {
    const out = new Map<string, { kind: RelationKind; id: CatalogId }>();
    for await (const rel of q.relationsAt(this.view, this.base, schemaId)) {
      const c = rel.kind === 'table' ? await this.loadTable(rel.id) : await this.loadView(rel.id);
      if (c.next?.schemaId === schemaId) out.set(c.next.name, { kind: rel.kind, id: rel.id });
    }
    for (const [kind, map] of [['table', this.tables], ['view', this.views]] as const) {
      for (const [id, c] of map) {
        if (c.base === undefined && c.next?.schemaId === schemaId) out.set(c.next.name, { kind, id });
      }
    }
    return out;
  }

  private async relation(schemaId: CatalogId, name: string): Promise<{ kind: RelationKind; id: CatalogId } | undefined> {
    for (const [kind, map] of [['table', this.tables], ['view', this.views]] as const) {
      for (const [id, c] of map) if (c.next?.schemaId === schemaId && c.next.name === name) return { kind, id };
    }
    const rel = await q.relationByName(this.view, this.base, schemaId, name);
    if (rel === undefined) return undefined;
    const c = rel.kind === 'table' ? await this.loadTable(rel.id) : await this.loadView(rel.id);
    return c.next?.schemaId === schemaId && c.next.name === name ? rel : undefined;
  }

  private async requireFreeRelationName(schemaId: CatalogId, schema: string, name: string): Promise<void> {
    const rel = await this.relation(schemaId, name);
    if (rel) throw alreadyExists(`${rel.kind} ${quote(schema, name)} already exists (id ${rel.id})`);
  }

  private async requireTable(schema: string, name: string): Promise<ResolvedTable> {
    const schemaId = await this.requireSchema(schema);
    const rel = await this.relation(schemaId, name);
    if (rel?.kind === 'table') return { schemaId, id: rel.id, change: this.tables.get(rel.id)! };
    if (rel?.kind === 'view') throw notFound(`${quote(schema, name)} is a view, not a table`);
    const tables = [...(await this.relations(schemaId))].filter(([, r]) => r.kind === 'table').map(([n]) => n);
    throw notFound(`table ${quote(schema, name)} does not exist; tables in ${quote(schema)}: ${listed(tables)}`);
  }

  private async loadColumns(tableId: CatalogId): Promise<TableColumns> {
    let cols = this.columns.get(tableId);
    if (!cols) {
      // Column ids are never reused, so the next one comes after every id the table ever had.
      const all = await q.columnsOf(this.view, tableId, undefined);
      cols = {
        changes: new Map(
          (await q.columnsOf(this.view, tableId, this.base)).map((v) => [v.id, unchanged<ColumnRow>(v)]),
        ),
        nextId: Math.max(0, ...all.map((v) => v.id)) + 1,
      };
      this.columns.set(tableId, cols);
    }
    return cols;
  }

  private async requireColumn(schema: string, table: string, column: string) {
    checkName('column name', column);
    const t = await this.requireTable(schema, table);
    const cols = await this.loadColumns(t.id);
    const live = [...cols.changes.values()].filter((c) => c.next !== null);
    const change = live.find((c) => c.next!.name === column);
    if (!change) {
      throw notFound(
        `column ${quote(column)} does not exist in table ${quote(schema, table)}; columns: ${listed(live.map((c) => c.next!.name))}`,
      );
    }
    return { change, cols, live: live.length };
  }

  // ---- files

  private async nextRowId(tableId: CatalogId): Promise<number> {
    let next = this.nextRowIds.get(tableId);
    if (next === undefined) {
      next = (await q.tableStats(this.view, tableId))?.nextRowId ?? 0;
      this.nextRowIds.set(tableId, next);
    }
    return next;
  }

  private async requireLiveDataFile(
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
      if (c.next === null) throw notFound(`data file ${fid} of ${quote(schema, table)} was removed at snapshot ${v?.row.end}`);
      this.dataFiles.set(fid, c);
    }
    if (c.tableId !== tableId) throw invalid(`data file ${fid} belongs to table ${c.tableId}, not to ${quote(schema, table)}`);
    if (c.next === null) throw notFound(`data file ${fid} of ${quote(schema, table)} is already removed by this transaction`);
    return c;
  }

  /** Ends a data file and its live delete files (the caller has loaded the table's delete files). */
  private retireDataFile(id: FileId, file: FileChange<DataFileRow>): void {
    file.next = null;
    for (const [did, d] of this.deleteFiles) {
      if (d.tableId !== file.tableId || d.next?.dataFileId !== id) continue;
      if (d.base === undefined && !d.endsAtCommit) this.deleteFiles.delete(did);
      else if (d.base !== undefined) d.next = null;
    }
    if (file.base === undefined) this.dataFiles.delete(id);
  }

  private async loadDataFiles(tableId: CatalogId): Promise<void> {
    if (this.dataFilesLoaded.has(tableId)) return;
    for await (const batch of dataFilesAt(this.view, this.base, tableId)) {
      for (const v of batch) if (!this.dataFiles.has(v.id)) this.dataFiles.set(v.id, { tableId, ...unchanged(v) });
    }
    this.dataFilesLoaded.add(tableId);
  }

  private async loadDeleteFiles(tableId: CatalogId): Promise<void> {
    if (this.deleteFilesLoaded.has(tableId)) return;
    for await (const batch of deleteFilesAt(this.view, this.base, tableId)) {
      for (const v of batch) if (!this.deleteFiles.has(v.id)) this.deleteFiles.set(v.id, { tableId, ...unchanged(v) });
    }
    this.deleteFilesLoaded.add(tableId);
  }

  // ---- drops: load everything first, return the mutation to apply once every load has succeeded

  private async prepareDropTable(tableId: CatalogId): Promise<() => void> {
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

  private prepareDropView(viewId: CatalogId): () => void {
    const view = this.views.get(viewId)!;
    return () => {
      view.next = null;
    };
  }
}
