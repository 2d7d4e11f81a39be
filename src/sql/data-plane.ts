// The catalog's SQL surface (DESIGN §8): SELECTs over any snapshot, INSERTs and loads, on one DuckDB instance and one
// cache of fetched files per catalog.
import * as path from 'node:path';
import type { Transaction, TxSqlResult } from '../txn/transaction.js';
import { compact, type CompactOptions, type CompactResult } from './compact.js';
import type { Violation } from '../../keys/violation.js';
import { DeletePositionChecks, deletePositionViolations, type NamedDeleteFile } from './delete-positions.js';
import { Engine } from './engine.js';
import { FieldIdChecks } from './file-columns.js';
import { load, type LoadOptions, type LoadResult } from './load.js';
import { LocalFiles } from './local-files.js';
import { RegistrationChecks } from './registration-checks.js';
import { type ChangeBound, rowChangeBatches, rowChanges, type RowChangesContext } from './row-changes.js';
import { write } from './write.js';
import { Mirror } from './mirror.js';
import { isSelect, type PlaneContext, select, selectBatches, type SqlOptions, type SqlResult } from './query.js';

export type { ChangeBound, CompactOptions, CompactResult, LoadOptions, LoadResult, SqlOptions, SqlResult };

const GiB = 2 ** 30;

export class DataPlane {
  private readonly engine = new Engine();
  private readonly ctx: RowChangesContext;
  /** What transactions read of the files they register (TxnContext.files). */
  readonly inspector: RegistrationChecks;

  constructor(catalog: Omit<RowChangesContext, 'engine' | 'files' | 'mirror' | 'positions' | 'fieldIds'>, dir: string) {
    const files = new LocalFiles(catalog.store, { cacheDir: path.join(dir, 'cache'), maxCacheBytes: GiB });
    const positions = new DeletePositionChecks(this.engine);
    const fieldIds = new FieldIdChecks(this.engine);
    this.ctx = { ...catalog, engine: this.engine, files, mirror: new Mirror(this.engine), positions, fieldIds };
    this.inspector = new RegistrationChecks({ store: catalog.store, dataPath: catalog.dataPath, engine: this.engine, positions, fieldIds });
  }

  async sql(text: string, opts: SqlOptions | undefined): Promise<SqlResult> {
    return (await isSelect(this.ctx, text)) ? select(this.ctx, text, opts) : write(this.ctx, text, opts);
  }

  /**
   * One statement inside transaction `tx` (tx.sql): reads without AT see the transaction's state, writes
   * become its operations. Nothing commits here.
   */
  async inTransaction(tx: Transaction, text: string, opts: unknown): Promise<TxSqlResult> {
    const ctx: PlaneContext = {
      ...this.ctx,
      pending: true,
      reader: (selector) => (selector === undefined ? Promise.resolve(tx.reads()) : this.ctx.reader(selector)),
      transaction: async (fn) => {
        await fn(tx);
        return { snapshot: null };
      },
    };
    const r = (await isSelect(ctx, text)) ? await select(ctx, text, opts as SqlOptions) : await write(ctx, text, opts as SqlOptions);
    return { rows: r.rows, columns: r.columns };
  }

  /** A SELECT's rows batch by batch; a write's one result, once it committed. */
  async *sqlBatches(text: string, opts: SqlOptions | undefined): AsyncGenerator<SqlResult> {
    if (await isSelect(this.ctx, text)) yield* selectBatches(this.ctx, text, opts);
    else yield await write(this.ctx, text, opts);
  }

  tableChanges(schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): Promise<SqlResult> {
    return rowChanges(this.ctx, schema, table, range);
  }

  tableChangesBatches(schema: string, table: string, range: { from: ChangeBound; to: ChangeBound }): AsyncGenerator<SqlResult> {
    return rowChangeBatches(this.ctx, schema, table, range);
  }

  compact(schema: string, table: string, opts: CompactOptions | undefined): Promise<CompactResult> {
    return compact(this.ctx, schema, table, opts);
  }

  load(schema: string, table: string, source: string, opts: LoadOptions | undefined): Promise<LoadResult> {
    return load(this.ctx, schema, table, source, opts);
  }

  /** verify({ files }): the delete files whose positions do not fit their data files. */
  deletePositionViolations(named: NamedDeleteFile[]): Promise<Violation[]> {
    return deletePositionViolations(this.ctx, named);
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
