// Turns what a reader asks for (an id, a time, a tag, "previous", or nothing = the newest) into one snapshot,
// always inside the reader's own read view: a fresh answer over a stale view cannot happen.
import { type SnapshotId, snapshotId } from '../../keys/ids.js';
import type { SnapshotRow } from '../../keys/snapshots.js';
import { checkName } from '../arguments.js';
import { StrataError } from '../errors.js';
import { parseInstant } from '../snapshot-names.js';
import { noSuchTag } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from './catalog-queries.js';

export interface SnapshotSelector {
  /** A snapshot id. */
  snapshot?: number;
  /** The newest snapshot committed at or before this time: ms since epoch, a Date, or an ISO-8601 string. */
  timestamp?: number | Date | string;
  /** A tag name, or the reserved `current` / `previous`. */
  tag?: string;
  /** The previous user version: skips maintenance commits. */
  previous?: true;
}

export const RESERVED_TAGS = new Set(['current', 'previous']);

const SELECTORS = ['snapshot', 'timestamp', 'tag', 'previous'] as const;
const invalid = (message: string) => new StrataError('INVALID_ARGUMENT', message);

export interface ResolveOptions {
  /** How many snapshots "previous" may look at before giving up. */
  previousWalkLimit: number;
}

export async function resolveSnapshot(
  view: ReadView,
  selector: SnapshotSelector,
  opts: ResolveOptions,
): Promise<{ id: SnapshotId; row: SnapshotRow }> {
  const given = SELECTORS.filter((k) => selector[k] !== undefined);
  if (given.length > 1) throw invalid(`a reader takes one of { snapshot, timestamp, tag, previous }; got ${given.join(' and ')}`);
  let id: SnapshotId;
  if (selector.snapshot !== undefined) return byId(view, selector.snapshot);
  else if (selector.timestamp !== undefined) id = await inRetention(view, 'timestamp', await byTimestamp(view, parseInstant('timestamp', selector.timestamp)));
  else if (selector.tag !== undefined) id = await byTag(view, selector.tag, opts);
  else if (selector.previous !== undefined) {
    if (selector.previous !== true) throw invalid(`previous takes true, got ${JSON.stringify(selector.previous)}`);
    id = await inRetention(view, 'previous', await previousUserVersion(view, (await q.headSnapshot(view)).begin, opts.previousWalkLimit));
  } else {
    const head = await q.headSnapshot(view);
    return { id: head.begin, row: head.row };
  }
  return { id, row: (await q.snapshotRow(view, id))! };
}

/**
 * A snapshot found by time or by walking back must be at or above retain-from, tagged or not: below it,
 * excision removes the snapshots in between, so the same question would get another answer later.
 * Tagged snapshots below retain-from are read by tag or id.
 */
async function inRetention(view: ReadView, how: string, id: SnapshotId): Promise<SnapshotId> {
  const r = (await q.retainFrom(view)).snapshot;
  if (id >= r) return id;
  throw new StrataError(
    'OUT_OF_RETENTION',
    `the snapshot that ${how} selects (${id}) is below retain-from (${r}); the oldest readable snapshot is ${r} ` +
      '(tagged snapshots below it are read by tag or id)',
    { snapshot: id, first: r },
  );
}

async function byId(view: ReadView, n: unknown): Promise<{ id: SnapshotId; row: SnapshotRow }> {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw invalid(`snapshot must be a snapshot id (an integer >= 0), got ${JSON.stringify(n)}`);
  }
  const id = snapshotId(n);
  await q.assertRetained(view, id);
  // Past the view's newest snapshot nothing exists for this view, even if the shared cache already holds
  // the row of a snapshot committed since the view was taken.
  const row = id > (await q.headSnapshot(view)).begin ? undefined : await q.snapshotRow(view, id);
  if (row === undefined) {
    const nearest = await q.nearestSnapshots(view, id);
    throw new StrataError('SNAPSHOT_NOT_FOUND', `snapshot ${id} does not exist; the nearest that do: ${nearest.join(', ') || 'none'}`, {
      snapshot: id,
      nearest,
    });
  }
  return { id, row };
}

async function byTimestamp(view: ReadView, time: number): Promise<SnapshotId> {
  const id = await q.snapshotAtOrBefore(view, time);
  if (id !== undefined) return id;
  // Snapshots before the first one left may have been excised: that is retention, not an empty past.
  if ((await q.retainFrom(view)).snapshot > 0) return inRetention(view, 'timestamp', snapshotId(0));
  const first = (await q.firstSnapshot(view))!;
  throw new StrataError(
    'BEFORE_FIRST_SNAPSHOT',
    `no snapshot was committed at or before ${new Date(time).toISOString()}; the first is snapshot ${first.begin}, ` +
      `committed ${new Date(first.row.time).toISOString()}`,
    { first: first.begin },
  );
}

async function byTag(view: ReadView, given: unknown, opts: ResolveOptions): Promise<SnapshotId> {
  const name = checkName('tag', given);
  if (name === 'current') return (await q.headSnapshot(view)).begin;
  if (name === 'previous') return previousUserVersion(view, (await q.headSnapshot(view)).begin, opts.previousWalkLimit);
  const row = await q.tag(view, name);
  if (row === undefined) throw new StrataError('TAG_NOT_FOUND', noSuchTag(name));
  return row.snapshot;
}

/**
 * The newest user (non-maintenance) snapshot older than the newest user snapshot at or below `head`.
 * Snapshot 0 is the catalog's creation, not a version of anyone's data, so it never counts.
 */
export async function previousUserVersion(view: ReadView, head: SnapshotId, limit: number): Promise<SnapshotId> {
  let current: SnapshotId | undefined;
  let looked = 0;
  for await (const s of q.snapshotsDownFrom(view, head)) {
    if (s.id === 0) break;
    if (++looked > limit) {
      throw new StrataError(
        'WALK_LIMIT_EXCEEDED',
        `looked at ${limit} snapshots below ${head} without finding ${current === undefined ? 'a user commit' : 'the user commit before it'} ` +
          '(all maintenance); read by id or timestamp instead, or raise previousWalkLimit',
        { snapshot: head },
      );
    }
    if (s.maintenance) continue;
    if (current === undefined) current = s.id;
    else return s.id;
  }
  throw new StrataError(
    'NO_PREVIOUS_VERSION',
    current === undefined
      ? `there is no user commit at or below snapshot ${head}, so no previous version`
      : `snapshot ${current} is the first user version; there is no previous one`,
    { snapshot: current ?? head },
  );
}
