// Which Iceberg objects the retained history still needs, and deleting the rest as gc/protection.ts decides:
// every table a retained or protected snapshot can see is planned at the newest such snapshot (its plan names
// every object of every snapshot before it too), and the objects under this store's location that no plan
// names go, once older than the grace.
import type { CatalogId, SnapshotId } from '../../keys/ids.js';
import { type IcebergKeep, isIcebergObjectLetGo, protectedSnapshots } from '../../gc/protection.js';
import { ICEBERG_PREFIX } from '../commit/open.js';
import { isStrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { deleteEach, type Deletion } from '../store/delete-each.js';
import type { ObjectStore } from '../store/object-store.js';
import { locationPrefix, planTable, type Tag } from './table-plan.js';


/** What keeps Iceberg objects in this catalog now. */
export async function icebergKeep(view: ReadView, store: ObjectStore, now: number): Promise<IcebergKeep> {
  const horizon = (await q.retainFrom(view)).snapshot;
  const head = (await q.headSnapshot(view)).begin as number;
  const kept = await protectedSnapshots(view, now);
  const tags: Tag[] = [];
  for await (const t of q.tags(view)) tags.push({ name: t.name, snapshot: t.snapshot });
  const spans = new Map<CatalogId, { begin: number; end: number | null }[]>();
  for await (const batch of q.entityVersions(view, 'table')) {
    for (const v of batch) {
      const span = { begin: v.begin, end: v.row.end };
      const known = spans.get(v.id);
      if (known === undefined) spans.set(v.id, [span]);
      else known.push(span);
    }
  }
  const location = locationPrefix(store);
  const named = new Set<string>();
  const keepTables = new Set<string>();
  for (const [id, versions] of spans) {
    const at = newestVisible(versions, horizon, head, kept);
    if (at === undefined) continue;
    try {
      const plan = await planTable(view, store, `table ${id}`, id, at as SnapshotId, horizon, tags.filter((t) => t.snapshot <= at));
      for (const { prefix } of plan.manifests.values()) named.add(prefix);
      for (const list of plan.lists.values()) named.add(list);
      for (const d of plan.deletes) named.add(plan.deleteCopy(d));
    } catch (e) {
      // A table Iceberg cannot type now may have been served at a snapshot it could: keep all of it.
      if (!isStrataError(e, 'INVALID_ARGUMENT')) throw e;
      const uuid = (await q.tableAt(view, at as SnapshotId, id))!.row.uuid;
      keepTables.add(`${location}${uuid}/`);
    }
  }
  return { location, named, keepTables, horizon, protected: kept };
}

/** The newest snapshot at or above the horizon, or protected, at which one of the table's versions is visible. */
function newestVisible(versions: readonly { begin: number; end: number | null }[], horizon: number, head: number, kept: readonly number[]): number | undefined {
  const visible = (s: number) => versions.some((v) => v.begin <= s && (v.end === null || s < v.end));
  const lastEnd = versions.some((v) => v.end === null) ? head + 1 : Math.max(...versions.map((v) => v.end!));
  if (lastEnd - 1 >= horizon && visible(lastEnd - 1)) return lastEnd - 1;
  return [...kept].reverse().find(visible);
}

/** Deletes (or, in a dry run, lists) the Iceberg objects `keep` does not keep and the grace has passed for. */
export async function reclaimIcebergObjects(store: ObjectStore, keep: IcebergKeep, now: number, graceMs: number, dryRun: boolean): Promise<Deletion> {
  const go: string[] = [];
  // All of iceberg/, not only this location's prefix: the rule leaves other locations' objects alone, and the
  // listing a reclamation makes does not depend on where the store is.
  for await (const o of store.list(ICEBERG_PREFIX)) if (isIcebergObjectLetGo(o.key, o.lastModified, keep, now, graceMs)) go.push(o.key);
  if (dryRun) return { deleted: go, failed: [] };
  return deleteEach(store, go);
}
