// The catalog's SQL surface (DESIGN §8): SELECTs over any snapshot and loads, on one DuckDB instance and one
// cache of fetched files per catalog.
import * as path from 'node:path';
import { Engine } from './engine.js';
import { load, type LoadContext, type LoadOptions, type LoadResult } from './load.js';
import { LocalFiles } from './local-files.js';
import { select, selectBatches, type SqlOptions, type SqlResult } from './query.js';

export type { LoadOptions, LoadResult, SqlOptions, SqlResult };

const GiB = 2 ** 30;

export class DataPlane {
  private readonly engine = new Engine();
  private readonly ctx: LoadContext;

  constructor(catalog: Omit<LoadContext, 'engine' | 'files'>, dir: string) {
    const files = new LocalFiles(catalog.store, { cacheDir: path.join(dir, 'cache'), maxCacheBytes: GiB });
    this.ctx = { ...catalog, engine: this.engine, files };
  }

  sql(text: string, opts: SqlOptions | undefined): Promise<SqlResult> {
    return select(this.ctx, text, opts);
  }

  sqlBatches(text: string, opts: SqlOptions | undefined): AsyncGenerator<SqlResult> {
    return selectBatches(this.ctx, text, opts);
  }

  load(schema: string, table: string, source: string, opts: LoadOptions | undefined): Promise<LoadResult> {
    return load(this.ctx, schema, table, source, opts);
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
