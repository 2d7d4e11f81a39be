// File reclamation: deletes from the object store the data and delete files that excision left unnamed,
// once their grace period is over, and (on request) orphans: objects under the data path that no row names
// and that are older than a minimum age (an engine may be writing a file it has not registered yet).
import { encodeKey, keyPrefix, prefixEnd } from '../keys/key-codec.js';
import { Tag } from '../keys/tags.js';
import { StrataError } from '../src/errors.js';
import { decodeKey } from '../keys/key-codec.js';
import { decodeRow } from '../src/kv/decode.js';
import type { Mutation } from '../src/kv/kv-store.js';
import type { ReadView } from '../src/kv/read-view.js';
import * as q from '../src/read/catalog-queries.js';
import type { ObjectStore } from '../src/store/object-store.js';

const DAY = 24 * 3600 * 1000;

export interface ReclaimOptions {
  /** How long a scheduled file waits before it is deleted (default 2 days). */
  graceMs?: number;
  /** List what would go, delete nothing (default false). */
  dryRun?: boolean;
  /** Also sweep objects under the data path that no row names (default false). */
  orphans?: boolean;
  /** With orphans: only objects at least this old (default 7 days). */
  minAgeMs?: number;
}

export interface ReclaimReport {
  dryRun: boolean;
  /** Paths still scheduled after this run (their grace period is not over). */
  scheduled: string[];
  /** Paths deleted (or, in a dry run, that would be). */
  deleted: string[];
  /** Orphans deleted (or that would be); empty unless asked for. */
  orphans: string[];
}

export interface ReclaimPlan {
  due: string[];
  waiting: string[];
  /** Scheduled paths a row names again: unscheduled, never deleted. */
  named: string[];
  orphans: string[];
}

function nonNegative(what: string, v: unknown, d: number): number {
  if (v === undefined) return d;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new StrataError('INVALID_ARGUMENT', `${what} must be a whole number of ms >= 0, got ${JSON.stringify(v)}`);
  }
  return v;
}

export function checkReclaimOptions(opts: unknown): Required<ReclaimOptions> {
  const o = (opts ?? {}) as ReclaimOptions;
  if (typeof o !== 'object') throw new StrataError('INVALID_ARGUMENT', 'reclaimFiles() takes { graceMs?, dryRun?, orphans?, minAgeMs? }');
  for (const flag of ['dryRun', 'orphans'] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean') throw new StrataError('INVALID_ARGUMENT', `${flag} must be a boolean`);
  }
  return {
    graceMs: nonNegative('graceMs', o.graceMs, 2 * DAY),
    dryRun: o.dryRun ?? false,
    orphans: o.orphans ?? false,
    minAgeMs: nonNegative('minAgeMs', o.minAgeMs, 7 * DAY),
  };
}

const named = async (view: ReadView, path: string) => ((await q.filePathRows(view, [path])).get(path)?.length ?? 0) > 0;

/**
 * What one run deletes, decided on one view. Tags and leases are read first, whole: if they cannot be read
 * (a damaged value), this throws and nothing is deleted.
 */
export async function planReclaim(
  view: ReadView,
  store: ObjectStore,
  dataPath: string,
  now: number,
  opts: Required<ReclaimOptions>,
): Promise<ReclaimPlan> {
  for await (const _ of q.tags(view));
  for await (const _ of q.leases(view));
  const plan: ReclaimPlan = { due: [], waiting: [], named: [], orphans: [] };
  const scheduled = new Set<string>();
  const prefix = keyPrefix(Tag.ReclaimSchedule);
  for await (const [key, bytes] of view.scan({ gte: prefix, lt: prefixEnd(prefix) })) {
    const path = decodeKey(key).fields[0] as string;
    scheduled.add(path);
    const { scheduledAt } = decodeRow<{ scheduledAt: number }>(key, bytes);
    if (await named(view, path)) plan.named.push(path);
    else if (scheduledAt + opts.graceMs <= now) plan.due.push(path);
    else plan.waiting.push(path);
  }
  if (opts.orphans) {
    for await (const o of store.list(dataPath)) {
      const path = o.key.slice(dataPath.length);
      if (path === '' || scheduled.has(path) || now - o.lastModified < opts.minAgeMs) continue;
      if (!(await named(view, path))) plan.orphans.push(path);
    }
  }
  return plan;
}

/** The mutations that unschedule paths once their objects are gone (or a row names them again). */
export function unschedule(paths: readonly string[]): Mutation[] {
  return paths.map((p) => ({ type: 'del', key: encodeKey(Tag.ReclaimSchedule, [p]) }));
}
