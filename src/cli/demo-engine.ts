// The demo plays an engine that writes its own files: real Parquet written with DuckDB, with field ids equal
// to the table's column ids (as catalog.load and INSERT do), put into the store at the paths it chooses,
// so that several files go into one commit with the demo's own authors and messages.
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import type { DuckDBInstance } from '@duckdb/node-api';
import type { Catalog } from '../catalog/catalog.js';
import type { ObjectStore } from '../store/object-store.js';
import { duckdb } from '../sql/engine.js';
import { randomUUID } from '../random.js';

export class DemoEngine {
  private constructor(
    private readonly db: DuckDBInstance,
    private readonly catalog: Catalog,
    private readonly store: ObjectStore,
  ) {}

  static async start(catalog: Catalog, store: ObjectStore): Promise<DemoEngine> {
    const { DuckDBInstance } = duckdb();
    return new DemoEngine(await DuckDBInstance.create(':memory:'), catalog, store);
  }

  /** Writes the rows `select` gives (named as the table's columns) as data file `relative` of the table. */
  async dataFile(schema: string, table: string, relative: string, select: string) {
    const r = await this.catalog.reader();
    const columns = (await r.table(schema, table).finally(() => r.close())).columns;
    const ids = columns.map((c) => `"${c.name}": ${c.id}`).join(', ');
    const { rows, bytes, crc, footer } = await this.write(relative, select, `, FIELD_IDS {${ids}}`);
    return { path: relative, recordCount: rows, fileSizeBytes: bytes, contentCrc32: crc, footerSize: footer };
  }

  close(): void {
    this.db.closeSync();
  }

  private async write(relative: string, select: string, options: string) {
    const tmp = path.join(tmpdir(), `strata-demo-${randomUUID()}.parquet`);
    const c = await this.db.connect();
    try {
      await c.run(`COPY (${select}) TO '${tmp}' (FORMAT parquet${options})`);
      const meta = (await c.runAndReadAll(`SELECT num_rows, footer_size FROM parquet_file_metadata('${tmp}')`)).getRows()[0]!;
      const body = await readFile(tmp);
      await this.store.putIfAbsent(`${this.catalog.dataPath}${relative}`, body);
      return { rows: Number(meta[0]), bytes: body.length, crc: crc32(body), footer: Number(meta[1]) };
    } finally {
      c.closeSync();
      await rm(tmp, { force: true });
    }
  }
}
