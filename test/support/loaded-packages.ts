// A process that opens a catalog on a directory store, commits and reads, then prints which of the packages
// only some calls need it loaded: the AWS SDK (an S3 store), fastify (`strata serve`), avsc (Iceberg
// manifests), better-sqlite3 (a DuckLake file) and cli-progress (a bar on a terminal). With --serve it serves
// too; with --iceberg it writes a table's Iceberg metadata; with --export it exports a DuckLake file.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Catalog, serve } from '../../src/index.js';

const [dir, mode] = process.argv.slice(2);
const c = await Catalog.open({ dir: dir! });
await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'id', type: 'int64' }]));
await c.transaction((tx) => tx.addDataFile('main', 't', { path: 't/1.parquet', recordCount: 1, fileSizeBytes: 10 }));
const r = await c.reader();
await r.dataFiles('main', 't');
await r.close();
if (mode === '--serve') await (await serve(c, { port: 0 })).close();
if (mode === '--iceberg') await c.iceberg('main', 't');
if (mode === '--export') await c.exportDuckLake(path.join(dir!, 'lake.ducklake'));
await c.close();
const loaded = Object.keys(createRequire(import.meta.url).cache);
const optional = ['fastify', '@aws-sdk/client-s3', 'avsc', 'better-sqlite3', 'cli-progress'];
console.log(JSON.stringify(optional.filter((p) => loaded.some((k) => k.includes(`/node_modules/${p}/`)))));
