// `strata info`: where a catalog keeps things and how much of it there is — what an operator asks first.
import type { Catalog } from '../catalog/catalog.js';
import type { CatalogTotals, SnapshotInfo } from '../read/records.js';
import { count, size, table } from './format.js';

export async function describeInfo(c: Catalog) {
  const retained = await c.snapshotCount();
  let first: SnapshotInfo | undefined;
  for await (const s of c.iterateSnapshots()) {
    first = s;
    break;
  }
  const r = await c.reader();
  const head = r.snapshot;
  let live: CatalogTotals;
  try {
    live = await r.totals();
  } finally {
    await r.close();
  }
  return {
    ...c.storage(),
    head: { id: head.id, time: head.time },
    snapshots: { retained, first: first!.id, excised: head.id + 1 - retained },
    retainFrom: await c.retainFrom(),
    tags: (await c.tags()).length,
    leases: await c.leases(),
    live,
  };
}

export function renderInfo(i: Awaited<ReturnType<typeof describeInfo>>): string {
  const rows: (string | number)[][] = [
    ['store', i.store],
    ['log layout', i.logLayout],
    ['data path', i.dataLocation],
    ['newest snapshot', `${i.head.id} (${i.head.time.toISOString()})`],
    ['snapshots', `${i.snapshots.retained} here (from ${i.snapshots.first}), ${i.snapshots.excised} excised`],
    ['retain-from', i.retainFrom],
    ['tags', i.tags],
    ['leases', i.leases.length === 0 ? 'none' : i.leases.map((l) => `${l.holder} on ${l.snapshot}${l.expired ? ' (expired)' : ` until ${l.expiresAt.toISOString()}`}`).join('; ')],
    ['schemas, tables, views', `${i.live.schemas}, ${i.live.tables}, ${i.live.views}`],
    ['data files (newest)', `${count(i.live.dataFiles)}, ${size(i.live.dataBytes)}`],
    ['delete files (newest)', `${count(i.live.deleteFiles)}, ${size(i.live.deleteBytes)}`],
    ['live rows', count(i.live.rows)],
  ];
  return table(['', ''], rows).split('\n').slice(2).join('\n');
}
