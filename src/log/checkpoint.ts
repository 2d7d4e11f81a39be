// A checkpoint is the keyspace at one kv sequence, as sorted chunks plus a manifest, so a new machine starts
// from the newest checkpoint and replays only the log after it. A whole checkpoint's chunks hold every key; a
// checkpoint *after* another holds only the keys that changed since that one, each with its value or with
// none (deleted), and is read over it (decision 0059). The manifest is written last: a checkpoint without one
// is incomplete and ignored, and so is one after a checkpoint that is not complete. Chunks and manifests are
// created once and never changed.
//
//   checkpoints/<seq, 20 digits>/chunk-<n, 6 digits>   { seq, chunk: n, pairs: [[key, value], …] } in key order (whole)
//   checkpoints/<seq, 20 digits>/manifest              { seq, chunks, keys, createdAt, txn, after: null }
//   checkpoints/<seq, 20 digits>/delta-<n, 6 digits>   { seq, chunk: n, after, pairs: [[key, value | null], …] } (after another)
//   checkpoints/<seq, 20 digits>/manifest-after-<seq>  { seq, chunks, keys, createdAt, txn, after }
// each a checksummed frame (keys/framing.ts) that names its own checkpoint (and chunk), so a damaged object or
// one copied from another checkpoint is CORRUPT, and bootstrap falls back to an older checkpoint or the log.
// What a checkpoint is after is in its manifest's name, so a listing alone says which checkpoints others need,
// and a version that knows only whole checkpoints sees one after another as incomplete, never as the catalog.
// Checkpoints written before checksums (plain frames, chunks a bare array) still read.
import { checkedFrame, FrameError, isRecord, unframe } from '../../keys/framing.js';
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { isStrataError, StrataError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';

export const CHECKPOINT_PREFIX = 'checkpoints/';
/** Bytes of keys and values per chunk: large enough for few requests, small enough to stream. */
const CHUNK_BYTES = 4 << 20;

export interface CheckpointManifest {
  seq: KvSeq;
  chunks: number;
  keys: number;
  createdAt: number;
  /** The `txn` of log entry `seq` ('' in checkpoints written before it was recorded): the chain goes on from it. */
  txn: string;
  /** The checkpoint whose keyspace this one's chunks change; null: they hold the whole keyspace. */
  after: KvSeq | null;
}

/** A key and its value at the checkpoint's sequence; null in a checkpoint after another: the key is gone. */
export type CheckpointPair = [Uint8Array, Uint8Array | null];

interface WireChunk {
  seq: number;
  chunk: number;
  /** The checkpoint the chunk's checkpoint is after (absent: whole, and in chunks written before stacks). */
  after?: number;
  pairs: CheckpointPair[];
}

/** A checkpoint as the store holds it, complete or not. */
export interface StoredCheckpoint {
  seq: KvSeq;
  /** Whether its manifest is there (it is written last), and, if it is after another, that one is complete. */
  complete: boolean;
  /** The checkpoint it is after (null: whole, or its manifest is not there to say). */
  after: KvSeq | null;
  /** Its objects, manifest included. */
  keys: string[];
  /** The newest modification time of its objects, by the store's clock (ms since epoch). */
  lastModified: number;
}

const digits = (seq: KvSeq) => String(seq).padStart(20, '0');
const dir = (seq: KvSeq) => `${CHECKPOINT_PREFIX}${digits(seq)}`;
// A checkpoint after another names its chunks apart: a version that knows only whole checkpoints, writing
// one at the same entry, must not take them for its own.
const chunkKey = (seq: KvSeq, n: number, after: KvSeq | null) => `${dir(seq)}/${after === null ? 'chunk' : 'delta'}-${String(n).padStart(6, '0')}`;
const manifestKey = (seq: KvSeq, after: KvSeq | null) => `${dir(seq)}/manifest${after === null ? '' : `-after-${digits(after)}`}`;
const MANIFEST_NAME = /^manifest(?:-after-(\d{20}))?$/;

/** What a checkpoint object's name says: a manifest, and the checkpoint it is after (null: whole); undefined: no manifest. */
function manifestAfter(objectKey: string): KvSeq | null | undefined {
  const m = MANIFEST_NAME.exec(objectKey.slice(objectKey.lastIndexOf('/') + 1));
  return m === null ? undefined : m[1] === undefined ? null : kvSeq(Number(m[1]));
}

const corrupt = (key: string, why: string) =>
  new StrataError('CORRUPT', `checkpoint object ${key} cannot be read: ${why}; the checkpoint is damaged (an older one, or the log, can stand in for it)`);

function decode(key: string, bytes: Uint8Array): unknown {
  try {
    return unframe(bytes);
  } catch (e) {
    if (!(e instanceof FrameError)) throw e;
    throw corrupt(key, e.message);
  }
}

/** A pair as a chunk of checkpoint `m` may hold it: a key with a value, or with none where `m` is after another. */
const isPair = (m: CheckpointManifest, p: unknown): p is CheckpointPair =>
  Array.isArray(p) && p.length === 2 && p[0] instanceof Uint8Array && (p[1] instanceof Uint8Array || (p[1] === null && m.after !== null));

/** A chunk's pairs, after checking that it is chunk `n` of checkpoint `m` (a bare array: before chunks named themselves). */
function chunkPairs(key: string, bytes: Uint8Array, m: CheckpointManifest, n: number): CheckpointPair[] {
  const seq = m.seq;
  const decoded = decode(key, bytes);
  const legacy = Array.isArray(decoded);
  const chunk: WireChunk = legacy ? { seq, chunk: n, pairs: decoded as CheckpointPair[] } : (decoded as WireChunk);
  if (!legacy && (!isRecord(decoded) || !Array.isArray(chunk.pairs))) throw corrupt(key, 'not a checkpoint chunk');
  if (chunk.seq !== seq || chunk.chunk !== n) throw corrupt(key, `it is chunk ${chunk.chunk} of checkpoint ${chunk.seq}`);
  // Chunks of two writings of one checkpoint over different ones (one cut short) never read as one.
  if ((chunk.after ?? null) !== m.after) throw corrupt(key, `it is a chunk of checkpoint ${seq} after ${chunk.after ?? 'none'}, not after ${m.after ?? 'none'}`);
  if (!chunk.pairs.every((p) => isPair(m, p))) throw corrupt(key, 'a malformed key/value pair');
  return chunk.pairs;
}

function manifestOf(key: string, bytes: Uint8Array, seq: KvSeq, after: KvSeq | null): CheckpointManifest {
  const m = decode(key, bytes) as Partial<CheckpointManifest> | null;
  const count = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  if (!isRecord(m) || !count(m.chunks) || !count(m.keys) || !count(m.createdAt) || (m.txn !== undefined && typeof m.txn !== 'string')) {
    throw corrupt(key, 'not a checkpoint manifest');
  }
  if (m.seq !== seq) throw corrupt(key, `it is the manifest of checkpoint ${m.seq}`);
  if ((m.after ?? null) !== after) throw corrupt(key, `it says it is after checkpoint ${m.after ?? 'none'}`);
  return { seq, chunks: m.chunks!, keys: m.keys!, createdAt: m.createdAt!, txn: m.txn ?? '', after };
}

/** Pairs per batch a merged read hands on: a chunk's worth of small keys, a bounded part of a large one. */
const MERGED_BATCH = 16_384;

/** The checkpoints of one store: the only code that knows their layout. */
export class Checkpoints {
  constructor(private readonly store: ObjectStore) {}

  /**
   * Writes the entries (in key order) as a checkpoint at `seq`, whose log entry is `txn`; returns its
   * manifest. Without `after` the entries are the whole keyspace; with it, the keys that changed since
   * checkpoint `after` (a null value: deleted).
   */
  async write(seq: KvSeq, txn: string, entries: AsyncIterable<readonly CheckpointPair[]>, now: number, after: KvSeq | null = null): Promise<CheckpointManifest> {
    if (after !== null && after >= seq) throw new Error(`checkpoint ${seq} cannot be after checkpoint ${after}`);
    let chunk: CheckpointPair[] = [];
    let bytes = 0;
    let chunks = 0;
    let keys = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      chunks++;
      const key = chunkKey(seq, chunks, after);
      const body = checkedFrame({ seq, chunk: chunks, ...(after === null ? {} : { after }), pairs: chunk } satisfies WireChunk);
      // Create-if-absent: two processes checkpointing the same sequence over the same one write the same
      // bytes, and either wins. Other bytes there are another writing's (over another checkpoint, or cut
      // short): no manifest is written over them.
      if (!(await this.store.putIfAbsent(key, body)) && !Buffer.from(body).equals((await this.store.get(key)) ?? new Uint8Array(0))) {
        throw new StrataError('CONFLICT', `checkpoint ${seq} was not written: ${key} holds another writing's chunk; a later checkpoint will be`);
      }
      chunk = [];
      bytes = 0;
    };
    for await (const batch of entries) {
      for (const [k, v] of batch) {
        if (v === null && after === null) throw new Error('a whole checkpoint holds no deleted keys');
        chunk.push([k, v]);
        bytes += k.length + (v?.length ?? 0);
        keys++;
        if (bytes >= CHUNK_BYTES) await flush();
      }
    }
    await flush();
    const manifest: CheckpointManifest = { seq, chunks, keys, createdAt: now, txn, after };
    await this.store.putIfAbsent(manifestKey(seq, after), checkedFrame(manifest));
    return manifest;
  }

  /** Every checkpoint in the store, oldest first. */
  async list(): Promise<StoredCheckpoint[]> {
    const bySeq = new Map<number, StoredCheckpoint & { manifests: (KvSeq | null)[] }>();
    for await (const { key, lastModified } of this.store.list(CHECKPOINT_PREFIX)) {
      const m = /^checkpoints\/(\d{20})\/(.+)$/.exec(key);
      if (!m) continue;
      const seq = Number(m[1]);
      let c = bySeq.get(seq);
      if (c === undefined) bySeq.set(seq, (c = { seq: kvSeq(seq), complete: false, after: null, manifests: [], keys: [], lastModified: 0 }));
      c.keys.push(key);
      const after = manifestAfter(key);
      if (after !== undefined) c.manifests.push(after);
      c.lastModified = Math.max(c.lastModified, lastModified);
    }
    const sorted = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    // Oldest first, so the checkpoint one is after has been judged before it. Two manifests, or one after a
    // checkpoint not older than itself, are no checkpoint this version wrote.
    for (const c of sorted) {
      c.after = c.manifests.length === 1 ? c.manifests[0]! : null;
      c.complete = c.manifests.length === 1 && (c.after === null || (c.after < c.seq && bySeq.get(c.after)?.complete === true));
    }
    return sorted.map(({ manifests: _, ...c }) => c);
  }

  /**
   * Deletes a stored checkpoint, the manifest first and alone (S3 deletes a batch in no set order): one
   * interrupted half-way is left incomplete, and never looks complete with chunks missing.
   */
  async delete(c: StoredCheckpoint): Promise<void> {
    const isManifest = (k: string) => manifestAfter(k) !== undefined;
    await this.store.delete(c.keys.filter(isManifest));
    await this.store.delete(c.keys.filter((k) => !isManifest(k)));
  }

  /**
   * The complete checkpoints of those taken at a sequence `usable` accepts, newest first, each manifest read
   * when the caller gets to it: a caller that finds one damaged goes on to the next. A damaged manifest is
   * thrown as CORRUPT when its turn comes.
   */
  async *newestFirst(usable: (seq: KvSeq) => Promise<boolean>): AsyncGenerator<CheckpointManifest> {
    for (const c of (await this.list()).filter((s) => s.complete).reverse()) {
      if (!(await usable(c.seq))) continue;
      const m = await this.manifest(c.seq, c.after);
      if (m !== undefined) yield m;
    }
  }

  /** The manifest of checkpoint `seq`, after `after`; undefined if it is not there. */
  private async manifest(seq: KvSeq, after: KvSeq | null): Promise<CheckpointManifest | undefined> {
    const key = manifestKey(seq, after);
    const bytes = await this.store.get(key);
    return bytes === undefined ? undefined : manifestOf(key, bytes, seq, after);
  }

  /** The manifests a read of `m` reads the chunks of: the whole checkpoint it is over first, `m` last. */
  async stack(m: CheckpointManifest): Promise<CheckpointManifest[]> {
    const out = [m];
    for (let top = m; top.after !== null; ) {
      const below = await this.manifestNamed(top.after);
      if (below === undefined || below.seq >= top.seq) {
        throw corrupt(`${dir(top.after)}/`, `checkpoint ${top.seq} is after checkpoint ${top.after}, which has no one manifest`);
      }
      out.unshift(below);
      top = below;
    }
    return out;
  }

  /** The one manifest checkpoint `seq` has, whole or after another, as its objects' names say; undefined if not one. */
  private async manifestNamed(seq: KvSeq): Promise<CheckpointManifest | undefined> {
    const named: (KvSeq | null)[] = [];
    for await (const { key } of this.store.list(`${dir(seq)}/`)) {
      const after = manifestAfter(key);
      if (after !== undefined) named.push(after);
    }
    return named.length === 1 ? this.manifest(seq, named[0]!) : undefined;
  }

  /** Whether checkpoint `seq` (complete) and every one it is read over read whole: each chunk there and its checksum right. */
  async readsWhole(seq: KvSeq): Promise<boolean> {
    try {
      const m = await this.newestFirst(async (s) => s === seq).next();
      if (m.done) return false;
      for (const run of await this.stack(m.value)) for await (const _ of this.chunks(run));
      return true;
    } catch (e) {
      if (isStrataError(e, 'CORRUPT')) return false;
      throw e;
    }
  }

  /**
   * The keyspace checkpoint `m` holds, in key order, a bounded batch at a time: memory holds a chunk of each
   * checkpoint of its stack, however large the catalog. Each chunk is fetched while the one before it is read.
   */
  async *read(m: CheckpointManifest): AsyncGenerator<[Uint8Array, Uint8Array][]> {
    const stack = await this.stack(m);
    if (stack.length === 1) {
      for await (const chunk of this.chunks(m)) yield chunk as [Uint8Array, Uint8Array][];
      return;
    }
    yield* mergedNewestWins(stack.map((run) => this.chunks(run)));
  }

  /**
   * The pairs checkpoint `m`'s own chunks hold (deleted keys included), one chunk at a time. The next chunk's
   * bytes are fetched while one is read, and decoded when its turn comes (decoded, a chunk takes several
   * times its bytes).
   */
  async *chunks(m: CheckpointManifest): AsyncGenerator<CheckpointPair[]> {
    const fetch = (n: number) => {
      if (n > m.chunks) return undefined;
      const bytes = this.store.get(chunkKey(m.seq, n, m.after));
      // A fetch ahead that fails is thrown when its turn comes, not before.
      bytes.catch(() => undefined);
      return bytes;
    };
    let next = fetch(1);
    for (let n = 1; next !== undefined; n++) {
      const key = chunkKey(m.seq, n, m.after);
      const bytes = await next;
      next = fetch(n + 1);
      if (bytes === undefined) throw corrupt(key, `it is missing, and the manifest lists ${m.chunks} chunks`);
      yield chunkPairs(key, bytes, m, n);
    }
  }
}

/**
 * The pairs of several sorted runs as one sorted run: where runs hold the same key, the last run's pair wins,
 * and a key whose winning pair has no value is left out.
 */
async function* mergedNewestWins(runs: AsyncGenerator<CheckpointPair[]>[]): AsyncGenerator<[Uint8Array, Uint8Array][]> {
  const cursors = runs.map((run) => ({ run, pairs: [] as CheckpointPair[], at: 0, done: false }));
  const refill = async (c: (typeof cursors)[number]) => {
    while (!c.done && c.at >= c.pairs.length) {
      const next = await c.run.next();
      c.done = next.done === true;
      c.pairs = next.done ? [] : next.value;
      c.at = 0;
    }
  };
  await Promise.all(cursors.map(refill));
  let out: [Uint8Array, Uint8Array][] = [];
  const holding: (typeof cursors)[number][] = [];
  for (;;) {
    // The least key any run holds next, and the runs that hold it, in one pass.
    let least: CheckpointPair | undefined;
    holding.length = 0;
    for (const c of cursors) {
      const pair = c.pairs[c.at];
      if (pair === undefined) continue;
      const order = least === undefined ? -1 : Buffer.compare(pair[0], least[0]);
      if (order < 0) {
        least = pair;
        holding.length = 0;
      }
      if (order <= 0) holding.push(c);
    }
    if (least === undefined) break;
    // The newest run's pair for the key: runs are oldest first.
    const winner = holding.at(-1)!.pairs[holding.at(-1)!.at]!;
    if (winner[1] !== null) out.push(winner as [Uint8Array, Uint8Array]);
    let ended = false;
    for (const c of holding) {
      if (++c.at < c.pairs.length) continue;
      await refill(c);
      ended ||= c.done;
    }
    if (out.length >= MERGED_BATCH) {
      yield out;
      out = [];
    }
    // One run left (the others read to their ends): the rest of it as it comes.
    const left = ended ? cursors.filter((c) => c.at < c.pairs.length) : cursors;
    if (left.length === 1) {
      const [last] = left;
      out.push(...(last!.pairs.slice(last!.at).filter((p) => p[1] !== null) as [Uint8Array, Uint8Array][]));
      if (out.length > 0) yield out;
      for await (const chunk of last!.run) yield chunk.filter((p) => p[1] !== null) as [Uint8Array, Uint8Array][];
      return;
    }
  }
  if (out.length > 0) yield out;
}
