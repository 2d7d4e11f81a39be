// `strata info`: where a catalog keeps things and how much of it there is — what an operator asks first.
import type { SnapshotId } from '../../keys/ids.js';
import type { Catalog } from '../catalog/catalog.js';
import type { CatalogTotals, SnapshotInfo } from '../read/records.js';
import { count, size, table } from './format.js';

export async function describeInfo(c: Catalog): Promise<CatalogInfo> {
  // Started together: the count waits on LevelDB's worker threads while the totals' point reads run here.
  const [retained, first, { head, live }, retainFrom, tags, leases] = await Promise.all([
    c.snapshotCount(),
    firstSnapshot(c),
    newestTotals(c),
    c.retainFrom(),
    c.tags(),
    c.leases(),
  ]);
  return {
    ...c.storage(),
    head: { id: head.id, time: head.time },
    snapshots: { retained, first: first.id, excised: head.id + 1 - retained },
    retainFrom,
    tags: tags.length,
    leases,
    live,
  };
}

export interface CatalogInfo extends ReturnType<Catalog['storage']> {
  head: { id: SnapshotId; time: Date };
  snapshots: { retained: number; first: SnapshotId; excised: number };
  retainFrom: SnapshotId;
  tags: number;
  leases: Awaited<ReturnType<Catalog['leases']>>;
  live: CatalogTotals;
}

/** The oldest snapshot kept: there is always one, the newest at least. */
async function firstSnapshot(c: Catalog): Promise<SnapshotInfo> {
  let first: SnapshotInfo | undefined;
  for await (const s of c.iterateSnapshots()) {
    first = s;
    break;
  }
  return first!;
}

async function newestTotals(c: Catalog): Promise<{ head: SnapshotInfo; live: CatalogTotals }> {
  const r = await c.reader();
  try {
    return { head: r.snapshot, live: await r.totals() };
  } finally {
    await r.close();
  }
}

export function renderInfo(i: CatalogInfo): string {
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
