// Runs one large transaction in its own process, on a catalog an earlier process built, so that its peak RSS
// is this operation's (and the open's) and nothing else's.
// Usage: large-child.ts strata|peer <commit|drop|cascade> <dir> [files]
//        large-child.ts raw <op> <copy of Strata's index before the op> <Strata's store after it>
// Prints one JSON line: the operation's ms, RSS just after opening, peak RSS (bytes), and the raw side's
// key writes.
import { ClassicLevel } from 'classic-level';
import { Catalog } from '../../src/index.js';
import { kvSeq } from '../../keys/ids.js';
import { openLog } from '../../src/log/open-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { openPeer } from '../drivers/peer-sqlite.js';
import { peakRss as ownPeakRss } from '../child.js';

const [side, op, dir, arg] = process.argv.slice(2) as [string, 'commit' | 'drop' | 'cascade', string, string | undefined];
// The same files on both sides; made before the timing starts, as an engine has its file list in hand.
const files = Array.from({ length: op === 'commit' ? Number(arg) : 0 }, (_, i) => ({ path: `big/${i}.parquet`, rows: 1000, bytes: 1 << 20 }));

let run: () => Promise<unknown>;
let close: () => Promise<void>;
let writes: number | undefined;
if (side === 'strata') {
  const c = await Catalog.open({ dir, durability: 'durable', checkpointEvery: 0 });
  run = {
    commit: () =>
      c.transaction(async (tx) => {
        for (const f of files) await tx.addDataFile('main', 'big', { path: f.path, recordCount: f.rows, fileSizeBytes: f.bytes });
      }),
    drop: () => c.transaction((tx) => tx.dropTable('main', 'big')),
    cascade: () => c.transaction((tx) => tx.dropSchema('many', { cascade: true })),
  }[op];
  close = () => c.close();
} else if (side === 'peer') {
  const p = await openPeer({ dir, durable: true });
  run = { commit: () => p.addFiles('big', files), drop: () => p.dropTable('big'), cascade: () => p.dropSchema('many') }[op];
  close = () => p.close();
} else {
  // The floor: the mutations Strata's own entry for this operation carried, as one synced LevelDB batch.
  // Read through the commit log, whichever layout the store keeps it in.
  const log = await openLog(new DirectoryStore(arg!), { requested: undefined, mayCreate: false, sync: false });
  let entry;
  for (let seq = await log.head(kvSeq(0)); seq > 0; seq = kvSeq(seq - 1)) if ((entry = (await log.read(seq))!).kind === 'commit') break;
  log.close?.();
  const mutations = entry!.mutations;
  writes = mutations.length;
  const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  run = () => {
    const batch = db.batch();
    for (const m of mutations) {
      if (m.type === 'put') batch.put(m.key, m.value);
      else batch.del(m.key);
    }
    return batch.write({ sync: true });
  };
  close = () => db.close();
}

const rssAfterOpen = process.memoryUsage.rss();
const t = process.hrtime.bigint();
await run();
const ms = Number(process.hrtime.bigint() - t) / 1e6;
const peakRss = ownPeakRss();
await close();
process.stdout.write(`${JSON.stringify({ ms, rssAfterOpen, peakRss, writes })}\n`);
