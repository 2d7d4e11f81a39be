// A process that opens a catalog on a directory store, commits, reads and serves Iceberg metadata from it,
// then prints which of the packages only S3 and `strata serve` need it loaded; with --serve it serves too.
import { createRequire } from 'node:module';
import { Catalog, serve } from '../../src/index.js';

const [dir, mode] = process.argv.slice(2);
const c = await Catalog.open({ dir: dir! });
await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'id', type: 'int64' }]));
await c.transaction((tx) => tx.addDataFile('main', 't', { path: 't/1.parquet', recordCount: 1, fileSizeBytes: 10 }));
const r = await c.reader();
await r.dataFiles('main', 't');
await r.close();
if (mode === '--serve') await (await serve(c, { port: 0 })).close();
await c.close();
const loaded = Object.keys(createRequire(import.meta.url).cache);
console.log(JSON.stringify(['fastify', '@aws-sdk/client-s3'].filter((p) => loaded.some((k) => k.includes(`/node_modules/${p}/`)))));
