// One writer process of the multi-writer benchmark. Usage: writer.ts <dir> <store JSON> <commits> <name>
// Commits one data file per transaction into main.events (shared by every writer) and prints one JSON line:
// each commit's latency in ns and the store requests it made in all.
import { Catalog } from '../../src/index.js';
import { CountingStore } from '../../test/store/doubles/counting-store.js';
import { openStore } from './open-store.js';

const [dir, spec, n, name] = process.argv.slice(2) as [string, string, string, string];
const store = new CountingStore(openStore(JSON.parse(spec)));
const catalog = await Catalog.open({ dir, store, maxCommitAttempts: 10_000, checkpointEvery: 0 });
await catalog.refresh();
const before = store.total();
const ns: number[] = [];
for (let i = 0; i < Number(n); i++) {
  const t = process.hrtime.bigint();
  await catalog.transaction((tx) => tx.addDataFile('main', 'events', { path: `events/${name}-${i}.parquet`, recordCount: 1000, fileSizeBytes: 1 << 20 }));
  ns.push(Number(process.hrtime.bigint() - t));
}
const requests = store.total() - before;
await catalog.close();
process.stdout.write(`${JSON.stringify({ ns, requests })}\n`);
