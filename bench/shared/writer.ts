// One writer process of the multi-writer benchmarks. Usage: writer.ts <dir> <store JSON> <commits> <name> [table]
// Commits one data file per transaction into main.<table> (default events, shared by every writer) and prints
// one JSON line: each commit's start and end (ms since the epoch by this host's clock, so the writers' spans
// can be laid side by side), the store requests it made in all, and how many commits were refused (CONFLICT;
// any other failure ends the run).
import { Catalog } from '../../src/index.js';
import { CountingStore } from '../../test/store/doubles/counting-store.js';
import { openStore } from './open-store.js';

const [dir, spec, n, name, table = 'events'] = process.argv.slice(2) as [string, string, string, string, string?];
const store = new CountingStore(openStore(JSON.parse(spec)));
const catalog = await Catalog.open({ dir, store, maxCommitAttempts: 10_000, checkpointEvery: 0 });
await catalog.refresh();
const before = store.total();
const now = () => performance.timeOrigin + performance.now();
const spans: [number, number][] = [];
let refused = 0;
for (let i = 0; i < Number(n); i++) {
  const start = now();
  try {
    await catalog.transaction((tx) => tx.addDataFile('main', table, { path: `${table}/${name}-${i}.parquet`, recordCount: 1000, fileSizeBytes: 1 << 20 }));
  } catch (e) {
    if ((e as { code?: string }).code !== 'CONFLICT') throw e;
    refused++;
  }
  spans.push([start, now()]);
}
const requests = store.total() - before;
await catalog.close();
process.stdout.write(`${JSON.stringify({ spans, requests, refused })}\n`);
