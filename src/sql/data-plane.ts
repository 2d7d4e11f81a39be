// The catalog's SQL surface (docs/DESIGN.md §8): SELECTs over any snapshot, writes, loads and compaction, on one
// confined DuckDB engine and one cache of fetched files per catalog. Each call runs in a session of its own
// (engine.ts): stopped by its timeoutMs, its signal or close(), its local files removed when it ends.
import * as path from 'node:path';
import type { NamedDeleteFile } from '../../keys/census.js';
import type { CommitLayer } from '../commit/commit-engine.js';
import type { ReadState, StateReads } from '../read/read-state.js';
import type { DataFileInfo, DeleteFileInfo } from '../read/records.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import type { Transaction, TxnSql, TxSqlResult } from '../txn/transaction.js';
import { compact, type CompactOptions, type CompactResult } from './compact.js';
import type { Violation } from '../../keys/violation.js';
import { DeletePositionChecks, deletePositionViolations } from './delete-positions.js';
import { Engine, type Session } from './engine.js';
import { FieldIdChecks } from './file-columns.js';
import { load, type LoadOptions, type LoadResult } from './load.js';
import { positionDeleteCopy } from './position-deletes.js';
import { keptPositionsBudget, KeptPositions } from './kept-positions.js';
import { LocalFiles } from './local-files.js';
import { checkHostFiles, type SqlSettings } from './settings.js';
import { RegistrationChecks } from './registration-checks.js';
import { type ChangeBound, rowChangeBatches, rowChanges, type RowChangesContext } from './row-changes.js';
import type { StopOptions } from './stop.js';
import { write } from './write.js';
import { Mirror } from './mirror.js';
import { viewDefinition } from './view-definition.js';
import { duckType } from './duck-types.js';
import { StrataError } from '../errors.js';
import { explainOf, isSelect, type PlaneContext, select, selectBatches, type SqlOptions, type SqlResult } from './query.js';

export type { ChangeBound, CompactOptions, CompactResult, LoadOptions, LoadResult, SqlOptions, SqlResult };

const GiB = 2 ** 30;

/** What a call's options say of how it is stopped (checked by the Stop, unknown keys by the call). */
const stopOptions = (given: unknown): StopOptions => {
  if (given === null || typeof given !== 'object') return {};
  const { timeoutMs, signal } = given as StopOptions;
  return { ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(signal === undefined ? {} : { signal }) };
};

/** Inside a transaction (tx.sql): a reference without AT reads the transaction's own state, one with AT a committed snapshot. */
class TransactionReads implements StateReads {
  constructor(
    private readonly tx: Transaction,
    private readonly committed: StateReads,
  ) {}

  reader(selector?: SnapshotSelector): Promise<ReadState> {
    return selector === undefined ? Promise.resolve(this.tx.reads()) : this.committed.reader(selector);
  }
}

export class DataPlane implements TxnSql {
  private readonly engine: Engine;
  private readonly ctx: Omit<RowChangesContext, 'engine' | 'hostFiles' | 'hostWrites' | 'transaction'>;
  /** What transactions read of the files they register (TxnSql.files). */
  readonly files: RegistrationChecks;

  constructor(
    /** Below it: where it reads at a snapshot and commits. */
    private readonly base: CommitLayer,
    private readonly settings: SqlSettings,
  ) {
    const { store, dataPath, dir } = base;
    const cacheDir = path.join(dir, 'cache');
    const files = new LocalFiles(store, { cacheDir, maxCacheBytes: GiB });
    // DuckDB reads a store's files where they are when the store names them by a local path (a directory
    // store: local-files.ts asks the same url()), else from the cache (S3).
    const direct = store.url(`${dataPath}any`);
    const lakeDirs = path.isAbsolute(direct) ? [cacheDir, path.dirname(direct)] : [cacheDir];
    this.engine = new Engine({ lakeDirs, scratchDir: path.join(dir, 'sql-scratch'), memoryLimit: settings.memoryLimit });
    const positions = new DeletePositionChecks(this.engine.connections, new KeptPositions(this.engine.connections, keptPositionsBudget(settings.memoryLimit)));
    const fieldIds = new FieldIdChecks(this.engine.connections);
    const mirror = new Mirror(this.engine.planner, (q, arg) => this.engine.textFunction(q, arg));
    this.ctx = { reads: base, committed: base, writable: () => base.writable(), store, dataPath, files, mirror, positions, fieldIds };
    this.files = new RegistrationChecks({ store, dataPath, engine: this.engine.connections, positions, fieldIds });
  }

  sql(text: string, opts: SqlOptions | undefined): Promise<SqlResult> {
    return this.statement('the statement', opts, (ctx) => this.dispatch(ctx, text, opts));
  }

  /**
   * One statement inside transaction `tx` (tx.sql): reads without AT see the transaction's state, writes
   * become its operations. Nothing commits here.
   */
  async inTransaction(tx: Transaction, text: string, opts: unknown): Promise<TxSqlResult> {
    const r = await this.statement('the statement', opts, (ctx) =>
      this.dispatch(
        {
          ...(ctx as PlaneContext),
          pending: true,
          reads: new TransactionReads(tx, ctx.reads),
          transaction: async (fn) => {
            ctx.engine.stop.check();
            await fn(tx);
            return { snapshot: null };
          },
        },
        text,
        opts as SqlOptions,
      ),
    );
    return { rows: r.rows, columns: r.columns };
  }

  /** A view's text checked to be one SELECT, as DuckDB's parser serialises it (view-definition.ts). */
  viewDefinition(sql: string, view: string): Promise<string> {
    return viewDefinition((q, arg) => this.engine.textFunction(q, arg), sql, view);
  }

  /** Why DuckDB cannot read `value` as a `type` (its cast's message), or undefined (TxnSql.defaultProblem). */
  async defaultProblem(type: string, value: string): Promise<string | undefined> {
    try {
      // The value is bound, never spliced into the text: it is data, whatever it says.
      await this.engine.textFunction(`SELECT CAST($1::VARCHAR AS ${duckType({ type })})::VARCHAR`, value);
      return undefined;
    } catch (e) {
      if (e instanceof StrataError && e.code !== 'INVALID_ARGUMENT') throw e;
      return (e as Error).message.split('\n')[0];
    }
  }

  /** A SELECT's rows batch by batch; a write's one result, once it committed. */
  async *sqlBatches(text: string, opts: SqlOptions | undefined): AsyncGenerator<SqlResult> {
    const session = this.engine.session('the statement', stopOptions(opts));
    try {
      const ctx = this.context(session, opts);
      if (typeof text === 'string' && explainOf(text) !== undefined) yield await this.dispatch(ctx, text, opts);
      else if (await isSelect(ctx, text)) yield* selectBatches(ctx, text, opts);
      else yield await write(ctx, text, opts);
    } catch (e) {
      throw session.stop.outcome(e);
    } finally {
      await session.end();
    }
  }

  tableChanges(schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): Promise<SqlResult> {
    return this.statement('tableChanges()', undefined, (ctx) => rowChanges(ctx, schema, table, range));
  }

  async *tableChangesBatches(schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): AsyncGenerator<SqlResult> {
    const session = this.engine.session('tableChanges()', undefined);
    try {
      yield* rowChangeBatches(this.context(session, undefined), schema, table, range);
    } catch (e) {
      throw session.stop.outcome(e);
    } finally {
      await session.end();
    }
  }

  compact(schema: string, table: string, opts: CompactOptions | undefined): Promise<CompactResult> {
    return this.statement('compact()', opts, (ctx) => compact(ctx, schema, table, opts));
  }

  load(schema: string, table: string, source: string, opts: LoadOptions | undefined): Promise<LoadResult> {
    return this.statement('load()', opts, (ctx) => load(ctx, schema, table, source, opts));
  }

  /** Iceberg's copy of a delete file: its positions with the data file's full location, by field id (position-deletes.ts). */
  positionDeleteCopy(deletes: DeleteFileInfo, data: DataFileInfo, dataLocation: string): Promise<Uint8Array> {
    return this.statement('iceberg()', undefined, (ctx) => positionDeleteCopy(ctx, deletes, data, dataLocation));
  }

  /** verify({ files }): the delete files whose positions do not fit their data files. */
  deletePositionViolations(named: NamedDeleteFile[]): Promise<Violation[]> {
    return this.statement('verify()', undefined, (ctx) => deletePositionViolations(ctx, named));
  }

  close(): Promise<void> {
    return this.engine.close();
  }

  private async dispatch(ctx: PlaneContext, text: string, opts: SqlOptions | undefined): Promise<SqlResult> {
    const explain = typeof text === 'string' ? explainOf(text) : undefined;
    if (explain === undefined) return (await isSelect(ctx, text)) ? select(ctx, text, opts) : write(ctx, text, opts);
    if (!(await isSelect(ctx, explain.select))) {
      throw new StrataError('INVALID_ARGUMENT', 'EXPLAIN shows the plan of a SELECT (each table a scan of the files it reads); a statement that writes is planned and run by sql() itself, and has no plan of its own to show');
    }
    return select(ctx, explain.select, opts, explain);
  }

  /** Runs `fn` as one statement: in a session of its own, stopped as `opts` say, its failure the stop's once stopped. */
  private async statement<T>(what: string, opts: unknown, fn: (ctx: RowChangesContext) => Promise<T>): Promise<T> {
    const session = this.engine.session(what, stopOptions(opts));
    try {
      return await session.stop.guard(() => fn(this.context(session, opts)));
    } finally {
      await session.end();
    }
  }

  /** The context of a statement in `session`: nothing commits once it stopped, and host files read and written as the call or the catalog says. */
  private context(session: Session, opts: unknown): RowChangesContext {
    const given = opts !== null && typeof opts === 'object' ? (opts as { hostFiles?: unknown; hostWrites?: unknown }) : {};
    const hostFiles = checkHostFiles('sql() hostFiles', given.hostFiles) ?? this.settings.hostFiles;
    const hostWrites = checkHostFiles('sql() hostWrites', given.hostWrites) ?? this.settings.hostWrites;
    return {
      ...this.ctx,
      engine: session,
      hostFiles,
      hostWrites,
      transaction: (fn, meta) => {
        session.stop.check();
        return this.base.transaction(fn, meta, this);
      },
    };
  }
}
