// The `tx` a caller's function receives: the operations a transaction offers. It reads the catalog as of the
// snapshot it builds on, keeps what the caller asks for as pending changes (pending.ts), and never writes:
// the catalog turns the pending state into one log entry when the function returns (see plan.ts).
//
// Every operation validates and reads first and mutates pending state last, so an operation that throws
// leaves the transaction exactly as it was and the caller may catch the error and go on.
import type { CatalogId, ColumnId, FileId, SnapshotId } from '../../keys/ids.js';
import { isWidening, nestedType, wideningsOf } from '../../keys/column-types.js';
import { StrataError } from '../errors.js';
import { listed, quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import { columnTree as columnInfos } from '../read/reader.js';
import { checkDefault, checkDefaults, type ColumnSpec, columnTree } from './column-specs.js';
import { checkDeleteCount, checkedColumnStats, checkedDataFile, checkedDeleteFile, type ColumnStatsSpec, type DataFileSpec, type DeleteFileSpec, type FileInspector } from './file-specs.js';
import { copyArgs } from './copy-args.js';
import { PendingReads } from './pending-reads.js';
import { type OpName, PendingCatalog, type PendingState, type RecordedOp, topLevel } from './pending.js';
import { alreadyExists, invalid, notFound } from './refusals.js';
import { restoreCatalog, restoreTable } from './restore.js';
import { applyImported, type ImportedSnapshot } from './imported.js';
import type { IdSource } from './ids.js';
import { ObservedPromise } from './observed-promise.js';
import { checkColumnType, checkName, checkOptionalText, flag, options } from '../arguments.js';
import { randomUUID } from '../random.js';

export type { ColumnSpec, ColumnStatsSpec, DataFileSpec, DeleteFileSpec, FileInspector };

/**
 * What a transaction needs of the SQL layer (this layer knows no SQL): given by whoever runs the transaction
 * (the facade and the SQL layer give theirs, an import its own), and kept with it for a rebase.
 */
export interface TxnSql {
  /** Reads what a registered file holds (see FileInspector). */
  readonly files: FileInspector;
  /** Runs tx.sql: one statement inside `tx`, its reads the transaction's state, its writes its operations. */
  inTransaction(tx: Transaction, text: string, opts: unknown): Promise<TxSqlResult>;
  /**
   * A DuckDB view's text checked to be one SELECT and serialised by DuckDB's parser, or INVALID_ARGUMENT
   * saying why not: a view is stored as what the parser made of it, never as text to run.
   */
  viewDefinition(sql: string, view: string): Promise<string>;
  /**
   * Why DuckDB cannot read `value` as a value of the catalog type `type` (its own cast's message), or
   * undefined: a column's default fills every row of a file written before the column, so it must be one.
   */
  defaultProblem(type: string, value: string): Promise<string | undefined>;
}

/** The codes of a file's own refusal (its spec, its statistics, its columns), which addDataFiles names the file in. */
const FILE_REFUSALS: ReadonlySet<string> = new Set(['INVALID_ARGUMENT', 'NOT_FOUND']);

/** What a transaction needs of the writer it runs in. */
export interface TxnContext {
  sql: TxnSql;
  /** Where its new catalog and file ids come from. */
  ids: IdSource;
  /** The longest file path (UTF-8 bytes, under the data path) the store can address. */
  maxPathBytes: number;
  /** The snapshot the transaction's writes were worked out at (CommitMeta.basedOn), when older than its base. */
  basedOn?: SnapshotId;
}

/** A statement's result inside a transaction: its rows and columns (nothing is committed until the transaction is). */
export interface TxSqlResult<Row extends Record<string, unknown> = Record<string, unknown>> {
  rows: Row[];
  columns: { name: string; type: string }[];
}

export class Transaction {
  private readonly p: PendingCatalog;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly ops: RecordedOp[] = [];
  private readonly failures: { name: OpName; error: unknown; promise: ObservedPromise<unknown> }[] = [];
  private sealed = false;

  constructor(
    view: ReadView,
    base: SnapshotId,
    private readonly counters: { nextCatalogId: CatalogId; nextFileId: FileId; schemaVersion?: number },
    private readonly ctx: TxnContext,
  ) {
    this.p = new PendingCatalog(view, base, counters, ctx.ids, ctx.basedOn);
  }

  /**
   * Runs one SQL statement in this transaction (docs/DESIGN.md §8): it reads what the transaction sees so far — its
   * base snapshot and the changes made before it, by SQL or by the calls below — and what it writes becomes
   * this transaction's operations, committed with the rest or not at all. Await each statement before the
   * next; a SELECT's table without AT reads the transaction's state too.
   */
  sql<Row extends Record<string, unknown> = Record<string, unknown>>(text: string, opts?: unknown): Promise<TxSqlResult<Row>> {
    return this.ctx.sql.inTransaction(this, text, opts) as Promise<TxSqlResult<Row>>;
  }

  /** What this transaction sees so far, read as a reader reads a snapshot (each read after the operations issued). */
  reads(): PendingReads {
    return new PendingReads(this.p, () => this.queue.then(() => undefined), this.counters.schemaVersion ?? 0);
  }

  /** The snapshot this transaction builds on: the newest one in its read view. */
  get base(): SnapshotId {
    this.p.reads.learnt.add('the base snapshot id');
    return this.p.base;
  }

  // ---------------------------------------------------------------- schemas

  createSchema(name: string): Promise<CatalogId> {
    return this.op('createSchema', [name], async (name) => {
      checkName('schema name', name);
      if ((await this.p.schemaId(name)) !== undefined) throw alreadyExists(`schema ${quote(name)} already exists`);
      const id = await this.p.allocateCatalogId();
      this.p.createSchema(id, { name, uuid: randomUUID() });
      return id;
    });
  }

  dropSchema(name: string, opts?: { cascade?: boolean }): Promise<void> {
    return this.op('dropSchema', [name, opts], async (name, opts) => {
      const cascade = flag('cascade', options('dropSchema()', opts, ['cascade']).cascade);
      const schemaId = await this.p.requireSchema(name);
      const relations = await this.p.relations(schemaId);
      if (relations.size > 0 && !cascade) {
        throw new StrataError(
          'DEPENDENT_OBJECTS',
          `schema ${quote(name)} is not empty: it holds ${listed([...relations.keys()])}; ` +
            'drop those first, or pass { cascade: true } to drop them with it',
        );
      }
      await this.p.prefetchDrops(schemaId, relations);
      const dropped: (() => void)[] = [];
      for (const rel of relations.values()) {
        dropped.push(rel.kind === 'table' ? await this.p.prepareDropTable(rel.id) : this.p.prepareDropView(rel.id));
      }
      for (const apply of dropped) apply();
      this.p.dropSchema(schemaId);
    });
  }

  // ---------------------------------------------------------------- tables

  createTable(schema: string, name: string, columns: ColumnSpec[]): Promise<CatalogId> {
    return this.op('createTable', [schema, name, columns], async (schema, name, columns) => {
      checkName('table name', name);
      if (!Array.isArray(columns) || columns.length === 0) {
        throw invalid(`table ${quote(schema, name)} needs at least one column, got ${JSON.stringify(columns)}`);
      }
      const trees = columns.map((c, i) => columnTree(c, i + 1));
      const seen = new Set<string>();
      for (const { row } of trees) {
        if (seen.has(row.name)) throw invalid(`table ${quote(schema, name)} names column ${quote(row.name)} twice`);
        seen.add(row.name);
      }
      for (const t of trees) await checkDefaults(this.ctx.sql, t);
      const schemaId = await this.p.requireSchema(schema);
      await this.p.requireFreeRelationName(schemaId, schema, name);
      const id = await this.p.allocateCatalogId();
      this.p.createTable(id, { schemaId, name, uuid: randomUUID() }, trees);
      return id;
    });
  }

  renameTable(schema: string, from: string, to: string): Promise<void> {
    return this.op('renameTable', [schema, from, to], async (schema, from, to) => {
      checkName('new table name', to);
      const t = await this.p.requireTable(schema, from);
      if (from === to) return;
      await this.p.requireFreeRelationName(t.schemaId, schema, to);
      this.p.renameTable(t.id, to);
    });
  }

  dropTable(schema: string, name: string): Promise<void> {
    return this.op('dropTable', [schema, name], async (schema, name) => {
      const t = await this.p.requireTable(schema, name);
      (await this.p.prepareDropTable(t.id))();
    });
  }

  // ---------------------------------------------------------------- columns

  addColumn(schema: string, table: string, column: ColumnSpec): Promise<ColumnId> {
    return this.op('addColumn', [schema, table, column], async (schema, table, column) => {
      const t = await this.p.requireTable(schema, table);
      const cols = await this.p.loadColumns(t.id);
      const live = topLevel(cols);
      const tree = columnTree(column, Math.max(0, ...live.map(([, c]) => c.next!.order)) + 1);
      await checkDefaults(this.ctx.sql, tree);
      if (live.some(([, c]) => c.next!.name === tree.row.name)) {
        throw alreadyExists(`column ${quote(tree.row.name)} already exists in table ${quote(schema, table)}`);
      }
      return this.p.addColumn(t.id, tree);
    });
  }

  dropColumn(schema: string, table: string, column: string): Promise<void> {
    return this.op('dropColumn', [schema, table, column], async (schema, table, column) => {
      const { tableId, id, live } = await this.p.requireColumn(schema, table, column);
      if (live === 1) {
        throw invalid(`column ${quote(column)} is the only column of ${quote(schema, table)}; drop the table instead`);
      }
      this.p.dropColumn(tableId, id);
    });
  }

  renameColumn(schema: string, table: string, from: string, to: string): Promise<void> {
    return this.op('renameColumn', [schema, table, from, to], async (schema, table, from, to) => {
      checkName('new column name', to);
      const { tableId, id, cols } = await this.p.requireColumn(schema, table, from);
      if (from === to) return;
      if (topLevel(cols).some(([, c]) => c.next!.name === to)) {
        throw alreadyExists(`column ${quote(to)} already exists in table ${quote(schema, table)}`);
      }
      this.p.renameColumn(tableId, id, to);
    });
  }

  alterColumnType(schema: string, table: string, column: string, type: string): Promise<void> {
    return this.op('alterColumnType', [schema, table, column, type], async (schema, table, column, type) => {
      const { tableId, id, change } = await this.p.requireColumn(schema, table, column);
      const from = change.next!.type;
      if (nestedType(from) !== undefined) {
        throw invalid(`column ${quote(column)} of ${quote(schema, table)} is a ${from}, whose type does not change; add a new column, copy the values over, and drop this one`);
      }
      const checked = checkColumnType(`type of column ${quote(column)}`, type);
      if (checked === from) return;
      if (!isWidening(from, checked)) {
        const allowed = wideningsOf(from);
        throw invalid(
          `column ${quote(column)} of ${quote(schema, table)} is ${from} and cannot become ${checked}: files already written keep ` +
            `${from}, so only widening changes are allowed (${allowed.length === 0 ? `none from ${from}` : `${from} to ${allowed.join(', ')}`}); ` +
            'to change it otherwise, add a new column, copy the values over, and drop this one',
        );
      }
      this.p.retypeColumn(tableId, id, checked);
    });
  }

  // ---------------------------------------------------------------- views

  createView(schema: string, name: string, sql: string, opts?: { dialect?: string }): Promise<CatalogId> {
    return this.op('createView', [schema, name, sql, opts], async (schema, name, sql, opts) => {
      const { dialect: given } = options('createView()', opts, ['dialect']);
      const definition = await this.viewDefinition(schema, name, sql, given);
      const schemaId = await this.p.requireSchema(schema);
      await this.p.requireFreeRelationName(schemaId, schema, name);
      const id = await this.p.allocateCatalogId();
      this.p.createView(id, { schemaId, name, uuid: randomUUID(), ...definition });
      return id;
    });
  }

  /**
   * A view's name, SQL and dialect as createView (and an import) takes them, checked: what the view row keeps.
   * A DuckDB view must be one SELECT and is kept as the parser's serialised tree too (decision 0043); another
   * dialect's text is kept for the engines that speak it, and DuckDB never reads it.
   */
  private async viewDefinition(schema: string, name: string, sql: unknown, dialect: unknown): Promise<{ sql: string; dialect: string; definition: string | null }> {
    checkName('view name', name);
    if (typeof sql !== 'string' || sql.trim() === '') throw invalid(`view ${quote(schema, name)} needs its SQL text`);
    checkOptionalText(`the SQL of view ${quote(schema, name)}`, sql);
    const checked = checkOptionalText('view dialect', dialect) ?? 'duckdb';
    return { sql, dialect: checked, definition: checked === 'duckdb' ? await this.ctx.sql.viewDefinition(sql, quote(schema, name)) : null };
  }

  dropView(schema: string, name: string): Promise<void> {
    return this.op('dropView', [schema, name], async (schema, name) => {
      const schemaId = await this.p.requireSchema(schema);
      const rel = (await this.p.relations(schemaId)).get(name);
      if (rel?.kind !== 'view') {
        throw notFound(`view ${quote(schema, name)} does not exist${rel ? ` (${quote(name)} is a table)` : ''}`);
      }
      this.p.prepareDropView(rel.id)();
    });
  }

  // ---------------------------------------------------------------- files

  addDataFile(schema: string, table: string, file: DataFileSpec): Promise<FileId> {
    return this.op('addDataFile', [schema, table, file], async (schema, table, file) => (await this.registerDataFiles(schema, table, [file], () => 'addDataFile()', (e) => e))[0]!);
  }

  /**
   * Data files of one table, added as addDataFile adds each in turn (ids and row ids in the order given), in
   * one operation: the table is resolved and its ids reserved once, not per file. Every file is checked
   * before any is added, so a refused one leaves the transaction as it was, and the error names it.
   */
  addDataFiles(schema: string, table: string, files: readonly DataFileSpec[]): Promise<FileId[]> {
    return this.op('addDataFiles', [schema, table, files], async (schema, table, files) => {
      if (!Array.isArray(files)) {
        throw invalid(`addDataFiles() takes an array of data files { path, recordCount, fileSizeBytes }, got ${files === null ? 'null' : typeof files}`);
      }
      const call = (i: number) => `addDataFiles() files[${i}]`;
      return this.registerDataFiles(schema, table, files, call, (e, i) => {
        // What was refused about a file says which file; a failure of the store or the index is not the file's.
        if (!(e instanceof StrataError) || !FILE_REFUSALS.has(e.code) || e.message.startsWith(call(i))) return e;
        const given = (files[i] as { path?: unknown } | undefined)?.path;
        return new StrataError(e.code, `${call(i)}${typeof given === 'string' ? ` (${JSON.stringify(given)})` : ''}: ${e.message}`, { cause: e });
      });
    });
  }

  /**
   * addDataFile(s): every file checked (`call` names the caller and the file in what is refused, `refused`
   * the file in anything else a check throws) before an id is taken or a row added, as every operation
   * validates first and changes the pending state last.
   */
  private async registerDataFiles(
    schema: string,
    table: string,
    files: readonly DataFileSpec[],
    call: (index: number) => string,
    refused: (e: unknown, index: number) => unknown,
  ): Promise<FileId[]> {
    const rows = files.map((file, i) => {
      try {
        return checkedDataFile(file, this.ctx.maxPathBytes, call(i));
      } catch (e) {
        throw refused(e, i);
      }
    });
    const t = await this.p.requireTable(schema, table);
    let liveColumns: ReturnType<Transaction['liveColumns']> | undefined;
    const live = () => (liveColumns ??= this.liveColumns(t.id));
    const checked = [];
    for (const [i, file] of files.entries()) {
      const row = rows[i]!;
      try {
        const stats = file.columnStats === undefined ? undefined : checkedColumnStats(quote(schema, table), new Set((await live()).map((c) => c.id as number)), file.columnStats, row.recordCount);
        // A file without field ids is read by name: its mapping, recorded with it.
        const columns = await this.ctx.sql.files.dataFile(quote(schema, table), async () => columnInfos(await live()), row);
        checked.push({ row, stats, columns });
      } catch (e) {
        throw refused(e, i);
      }
    }
    // Files of this transaction laid out alike share one mapping: one this call made (looked up first: a layout
    // is only ever made here when no earlier operation's matched), or an earlier operation's.
    const made = new Map<string, CatalogId>();
    const mappingIds: (CatalogId | undefined)[] = [];
    for (const { columns } of checked) {
      if (columns === undefined) {
        mappingIds.push(undefined);
        continue;
      }
      const layout = JSON.stringify(columns);
      let id = made.get(layout) ?? this.sameMapping(t.id, layout);
      if (id === undefined) made.set(layout, (id = await this.p.allocateCatalogId()));
      mappingIds.push(id);
    }
    await this.p.reserve('file', checked.length);
    let rowIdStart = await this.p.nextRowId(t.id);
    return checked.map(({ row, stats, columns }, i) => {
      const id = this.p.takeFileId();
      const mappingId = mappingIds[i];
      this.p.addDataFile(id, t.id, { ...row, rowIdStart, ...(mappingId === undefined ? {} : { mappingId }) }, {
        ...(stats === undefined ? {} : { stats }),
        ...(columns === undefined ? {} : { mapping: { mappingId: mappingId!, type: 'map_by_name', columns } }),
      });
      rowIdStart += row.recordCount;
      return id;
    });
  }

  private async liveColumns(tableId: CatalogId) {
    return [...(await this.p.loadColumns(tableId)).changes].filter(([, c]) => c.next !== null).map(([id, c]) => ({ id, row: c.next! }));
  }

  /** The id of a mapping of this transaction's files of the table with this layout (its columns as JSON), if it made one. */
  private sameMapping(tableId: CatalogId, layout: string): CatalogId | undefined {
    for (const [fid, m] of this.p.fileMappings) if (this.p.dataFiles.get(fid)?.tableId === tableId && JSON.stringify(m.columns) === layout) return m.mappingId;
    return undefined;
  }

  removeDataFile(schema: string, table: string, dataFileId: number): Promise<void> {
    return this.op('removeDataFile', [schema, table, dataFileId], async (schema, table, dataFileId) => {
      const t = await this.p.requireTable(schema, table);
      await this.p.requireLiveDataFile(schema, table, t.id, dataFileId);
      await this.p.loadDeleteFiles(t.id);
      this.p.retireDataFile(dataFileId as FileId);
    });
  }

  addDeleteFile(schema: string, table: string, spec: DeleteFileSpec): Promise<FileId> {
    return this.op('addDeleteFile', [schema, table, spec], async (schema, table, spec) => {
      const row = checkedDeleteFile(spec, this.ctx.maxPathBytes);
      const t = await this.p.requireTable(schema, table);
      const dataFile = await this.p.requireLiveDataFile(schema, table, t.id, spec.dataFileId);
      const dataFileId = spec.dataFileId as FileId;
      checkDeleteCount(row.deleteCount, dataFileId, dataFile.next!.recordCount);
      const records = dataFile.next!.recordCount;
      // Its positions, read when the store holds the file: then deleteCount is how many rows it deletes.
      await this.ctx.sql.files.deleteFile({ id: dataFileId, recordCount: records }, row);
      const deletesAll = row.deleteCount === records;
      await this.p.loadDeleteFiles(t.id);
      const id = await this.p.allocateFileId();
      this.p.deleteRows(id, { ...row, dataFileId }, deletesAll);
      return id;
    });
  }

  // ---------------------------------------------------------------- restore

  /**
   * Makes the table's columns and files what they were at snapshot `at`, as part of this transaction: history
   * only moves forward, so the old state comes back as new versions. The table keeps its current name.
   */
  restoreTable(schema: string, table: string, at: number): Promise<void> {
    return this.op('restoreTable', [schema, table, at], (schema, table, at) => restoreTable(this.p, schema, table, at));
  }

  /**
   * Makes the whole catalog what it was at snapshot `at`: schemas, tables and views that existed then come
   * back (with their ids), those created since are dropped, and every table's columns and files are restored.
   */
  restoreCatalog(at: number): Promise<void> {
    return this.op('restoreCatalog', [at], (at) => restoreCatalog(this.p, at));
  }

  /**
   * @internal importDuckLake's: one snapshot of the lake, with the lake's ids, on a catalog the import
   * created and alone writes (src/txn/imported.ts).
   */
  importSnapshot(s: ImportedSnapshot): Promise<void> {
    return this.op('importSnapshot', [s], (s) =>
      applyImported(this.p, s, {
        view: (schema, name, sql, dialect) => this.viewDefinition(schema, name, sql, dialect),
        column: (row) => checkDefault(this.ctx.sql, row),
        maxPathBytes: this.ctx.maxPathBytes,
      }),
    );
  }

  // ---------------------------------------------------------------- options

  setOption(key: string, value: string): Promise<void> {
    return this.op('setOption', [key, value], async (key, value) => {
      checkName('option key', key);
      if (typeof value !== 'string') throw invalid(`option ${quote(key)} takes a string value, got ${typeof value}`);
      this.p.setOption(key, checkOptionalText(`option ${quote(key)}`, value)!);
    });
  }

  // ---------------------------------------------------------------- for the catalog

  /**
   * Ends the transaction: waits for operations still running, then refuses any further call. An operation
   * that failed where the caller never looked (not awaited, no handler) fails the transaction: committing
   * the rest would commit half of what the caller meant (an insert without its delete).
   */
  async seal(): Promise<PendingState> {
    await this.queue;
    this.sealed = true;
    const unseen = this.failures.find((f) => !f.promise.observed);
    if (unseen !== undefined) {
      const e = unseen.error;
      const code = e instanceof StrataError ? e.code : 'INVALID_ARGUMENT';
      throw new StrataError(
        code,
        `${unseen.name}() failed and its failure was never awaited or caught, so the transaction fails as a whole and nothing ` +
          `was committed: ${e instanceof Error ? e.message : String(e)} — await each operation (or catch it to go on without it)`,
        { cause: e },
      );
    }
    return this.p.state(this.ops);
  }

  // ---------------------------------------------------------------- internals

  /**
   * Runs operations one at a time even if the caller does not await each, so each sees the last one's
   * effects, and records each that succeeds (with a copy of its arguments, taken when it was called, and
   * the ids it reserved) so that a commit that loses the race to another writer can replay them on the
   * newer state. Each failure is kept with the promise the caller got, which tells whether anyone looked.
   */
  private op<A extends unknown[], T>(name: OpName, args: [...A], fn: (...args: A) => Promise<T>): Promise<T> {
    if (this.sealed) {
      return Promise.reject(invalid('this transaction has ended; make changes inside the function passed to transaction()'));
    }
    const copy = copyArgs(args) as A;
    const recorded = async () => {
      try {
        // On the copy, as a replay runs it: a caller changing what it passed, before this operation's turn
        // comes, must not make what commits depend on whether the commit lost a race.
        const result = await fn(...copy);
        this.ops.push({ name, args: copy, result, ids: this.p.endOperation() });
        return result;
      } catch (e) {
        this.p.endOperation();
        // A refusal is what this state answered: the function may go on by it (a create that found the name taken).
        this.p.reads.learnt.add(`the refusal of ${name}()`);
        throw e;
      }
    };
    const run = this.queue.then(recorded);
    const promise = ObservedPromise.of(run);
    this.queue = run.then(
      () => undefined,
      (error: unknown) => void this.failures.push({ name, error, promise }),
    );
    return promise;
  }

}
