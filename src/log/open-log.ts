// Which layout a store's commit log has: chosen when the catalog is created, recorded in the store as the
// object `log-layout` (a checksummed frame), and read — never guessed — by every later open (docs/DESIGN.md §3).
// A store from before layouts were recorded has its entries as objects. At creation, a directory store on
// a local file system gets segments, and one on a network or cluster file system (NFS, SMB, FUSE, Ceph, …)
// gets objects, where create-if-absent of a name is the one step every host agrees on; S3 always objects.
import * as fs from 'node:fs';
import { checkedFrame, FrameError, isRecord, unframe } from '../../keys/framing.js';
import { kvSeq } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import { makeDirs } from '../make-dirs.js';
import type { ObjectStore } from '../store/object-store.js';
import type { CommitLog } from './commit-log.js';
import { logObjectKey, ObjectLog } from './object-log.js';
import { SegmentLog } from './segment-log.js';

export type LogLayout = 'objects' | 'segments';
export const LOG_LAYOUTS: readonly LogLayout[] = ['objects', 'segments'];

const LAYOUT_KEY = 'log-layout';

/**
 * statfs(2) magic numbers of file systems shared between machines: NFS, SMB/CIFS (two), FUSE, Ceph, 9p,
 * GFS2, OCFS2, Lustre, AFS. Appends and locks on them are not what one local disk gives.
 */
const SHARED_FILESYSTEMS = new Set([0x6969, 0xff534d42, 0xfe534d42, 0x65735546, 0x00c36400, 0x01021997, 0x01161970, 0x7461636f, 0x0bd00bd0, 0x5346414f]);

export interface OpenLogOptions {
  /** The layout asked for (undefined: the recorded one, or the default for this store). */
  requested: LogLayout | undefined;
  /** Whether a store with no catalog may have its layout recorded now (a writer creating the catalog). */
  mayCreate: boolean;
  /** fdatasync each append (durable) or not (relaxed). */
  sync: boolean;
}

export async function openLog(store: ObjectStore, opts: OpenLogOptions): Promise<CommitLog> {
  if (opts.requested !== undefined && !LOG_LAYOUTS.includes(opts.requested)) {
    throw new StrataError('INVALID_ARGUMENT', `logLayout is ${LOG_LAYOUTS.map((l) => `'${l}'`).join(' or ')}, got ${JSON.stringify(opts.requested)}`);
  }
  let layout = await recordedLayout(store);
  if (layout === undefined && opts.mayCreate) layout = await recordLayout(store, opts.requested ?? defaultLayout(store));
  if (layout === undefined) return new ObjectLog(store); // nothing to read yet, and nothing may be written
  if (opts.requested !== undefined && opts.requested !== layout) {
    throw new StrataError(
      'INVALID_ARGUMENT',
      `logLayout '${opts.requested}' was asked for, but the log in ${store.description} is kept as ${layout} (fixed when the catalog ` +
        `was created); open it without logLayout`,
    );
  }
  if (layout === 'objects') return new ObjectLog(store);
  const localRoot = store.localRoot;
  if (localRoot === undefined) {
    throw new StrataError('INVALID_ARGUMENT', `the log in ${store.description} is kept as segments, which only a directory store can read; open it as { store: { path } }`);
  }
  return new SegmentLog(store, localRoot, { sync: opts.sync });
}

function defaultLayout(store: ObjectStore): LogLayout {
  if (store.localRoot === undefined) return 'objects';
  makeDirs(store.localRoot);
  return SHARED_FILESYSTEMS.has(fs.statfsSync(store.localRoot).type) ? 'objects' : 'segments';
}

async function recordedLayout(store: ObjectStore): Promise<LogLayout | undefined> {
  const bytes = await store.get(LAYOUT_KEY);
  if (bytes === undefined) return (await store.get(logObjectKey(kvSeq(1)))) === undefined ? undefined : 'objects';
  let value: unknown;
  try {
    value = unframe(bytes);
  } catch (e) {
    if (!(e instanceof FrameError)) throw e;
    value = undefined;
  }
  const layout = isRecord(value) ? value.layout : undefined;
  if (typeof layout !== 'string' || !LOG_LAYOUTS.includes(layout as LogLayout)) {
    throw new StrataError('CORRUPT', `${LAYOUT_KEY} in ${store.description}, which says how the commit log is kept, cannot be read; restore it from a backup (it holds { layout: 'segments' } or { layout: 'objects' })`);
  }
  return layout as LogLayout;
}

/** Records `layout`, or adopts the one another process creating the same catalog recorded first. */
async function recordLayout(store: ObjectStore, layout: LogLayout): Promise<LogLayout> {
  if (layout === 'segments' && store.localRoot === undefined) {
    throw new StrataError('INVALID_ARGUMENT', `logLayout 'segments' needs a directory store on a local disk; ${store.description} is not one (use 'objects')`);
  }
  if (await store.putIfAbsent(LAYOUT_KEY, checkedFrame({ layout }))) return layout;
  return (await recordedLayout(store))!;
}
