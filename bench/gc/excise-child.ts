// Runs one excision in its own process, so its peak RSS is its own. Usage: excise-child.ts <dir>
// Prints one JSON line: the report, the time it took, peak RSS, and the raw limit (the same number of
// LevelDB deletes, in batches of the same size, through classic-level).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Catalog } from '../../src/index.js';
import { peakRss as ownPeakRss } from '../child.js';

const [dir] = process.argv.slice(2) as [string];
const catalog = await Catalog.open({ dir, checkpointEvery: 0 });
const t = process.hrtime.bigint();
const report = await catalog.excise({ batchSize: 1000 });
const ms = Number(process.hrtime.bigint() - t) / 1e6;
await catalog.close();
const peakRss = ownPeakRss();

// Raw: the keys one removed version costs here (its row, its end-index entry, its file→table and path
// index entries), deleted through classic-level in batches of 4,000.
const rawDir = await mkdtemp(path.join(tmpdir(), 'strata-bench-raw-excise-'));
const db = new ClassicLevel<Buffer, Buffer>(rawDir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
await db.open();
const keys = Array.from({ length: report.versions * 4 }, (_, i) => Buffer.from(`k${String(i).padStart(12, '0')}`));
const batches = async (fill: (b: ReturnType<typeof db.batch>, key: Buffer) => void, sync: boolean) => {
  for (let i = 0; i < keys.length; i += 4000) {
    const b = db.batch();
    for (const key of keys.slice(i, i + 4000)) fill(b, key);
    await b.write({ sync });
  }
};
await batches((b, key) => b.put(key, Buffer.alloc(60)), false);
const r = process.hrtime.bigint();
await batches((b, key) => b.del(key), true);
const rawMs = Number(process.hrtime.bigint() - r) / 1e6;
await db.close();
await rm(rawDir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ report, ms, peakRss, rawMs })}\n`);
