// A new machine's first open: an empty index bootstraps from the newest checkpoint plus the log tail.
// Usage: bootstrap.ts <dir> <store JSON>. Prints one JSON line: ms and this process's peak RSS.
import { Catalog } from '../../src/index.js';
import { openStore } from './open-store.js';
import { peakRss } from '../child.js';

const [dir, spec] = process.argv.slice(2) as [string, string];
const t = process.hrtime.bigint();
const catalog = await Catalog.open({ dir, store: openStore(JSON.parse(spec)), readOnly: true });
const ms = Number(process.hrtime.bigint() - t) / 1e6;
const r = await catalog.reader();
const snapshot = r.snapshot.id;
await r.close();
await catalog.close();
process.stdout.write(`${JSON.stringify({ ms, snapshot, peakRss: peakRss() })}\n`);
