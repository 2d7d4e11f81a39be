// A checkpoint is the whole keyspace at one kv sequence, as sorted chunks plus a manifest, so a new machine
// starts from the newest checkpoint and replays only the log after it. The manifest is written last: a
// checkpoint without one is incomplete and ignored. Chunks and manifest are created once and never changed.
//
//   checkpoints/<seq, 20 digits>/chunk-<n, 6 digits>   { seq, chunk: n, pairs: [[key, value], …] } in key order
//   checkpoints/<seq, 20 digits>/manifest              { seq, chunks, keys, createdAt, txn }
// each a checksummed frame (keys/framing.ts) that names its own checkpoint (and chunk), so a damaged object or
// one copied from another checkpoint is CORRUPT, and bootstrap falls back to an older checkpoint or the log.
// Checkpoints written before checksums (plain frames, chunks a bare array) still read.
import { checkedFrame, FrameError, isRecord, unframe } from '../../keys/framing.js';
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
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
}

interface WireChunk {
  seq: number;
  chunk: number;
  pairs: [Uint8Array, Uint8Array][];
}

/** A checkpoint as the store holds it, complete or not. */
export interface StoredCheckpoint {
  seq: KvSeq;
  /** Whether its manifest is there (it is written last). */
  complete: boolean;
  /** Its objects, manifest included. */
  keys: string[];
  /** The newest modification time of its objects, by the store's clock (ms since epoch). */
  lastModified: number;
}

const dir = (seq: KvSeq) => `${CHECKPOINT_PREFIX}${String(seq).padStart(20, '0')}`;
const chunkKey = (seq: KvSeq, n: number) => `${dir(seq)}/chunk-${String(n).padStart(6, '0')}`;
const manifestKey = (seq: KvSeq) => `${dir(seq)}/manifest`;

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

const isPair = (p: unknown): p is [Uint8Array, Uint8Array] =>
  Array.isArray(p) && p.length === 2 && p[0] instanceof Uint8Array && p[1] instanceof Uint8Array;

/** A chunk's pairs, after checking that it is chunk `n` of checkpoint `seq` (a bare array: before chunks named themselves). */
function chunkPairs(key: string, bytes: Uint8Array, seq: KvSeq, n: number): [Uint8Array, Uint8Array][] {
  const decoded = decode(key, bytes);
  const legacy = Array.isArray(decoded);
  const chunk = legacy ? { seq, chunk: n, pairs: decoded } : (decoded as WireChunk);
  if (!legacy && (!isRecord(decoded) || !Array.isArray(chunk.pairs))) throw corrupt(key, 'not a checkpoint chunk');
  if (chunk.seq !== seq || chunk.chunk !== n) throw corrupt(key, `it is chunk ${chunk.chunk} of checkpoint ${chunk.seq}`);
  if (!chunk.pairs.every(isPair)) throw corrupt(key, 'a malformed key/value pair');
  return chunk.pairs;
}

function manifestOf(key: string, bytes: Uint8Array, seq: KvSeq): CheckpointManifest {
  const m = decode(key, bytes) as Partial<CheckpointManifest> | null;
  const count = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  if (!isRecord(m) || !count(m.chunks) || !count(m.keys) || !count(m.createdAt) || (m.txn !== undefined && typeof m.txn !== 'string')) {
    throw corrupt(key, 'not a checkpoint manifest');
  }
  if (m.seq !== seq) throw corrupt(key, `it is the manifest of checkpoint ${m.seq}`);
  return { seq, chunks: m.chunks!, keys: m.keys!, createdAt: m.createdAt!, txn: m.txn ?? '' };
}

/** The checkpoints of one store: the only code that knows their layout. */
export class Checkpoints {
  constructor(private readonly store: ObjectStore) {}

  /** Writes the entries (in key order) as a checkpoint at `seq`, whose log entry is `txn`; returns its manifest. */
  async write(seq: KvSeq, txn: string, entries: AsyncIterable<[Uint8Array, Uint8Array][]>, now: number): Promise<CheckpointManifest> {
    let chunk: [Uint8Array, Uint8Array][] = [];
    let bytes = 0;
    let chunks = 0;
    let keys = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      // Create-if-absent: two processes checkpointing the same sequence write the same bytes; either wins.
      chunks++;
      await this.store.putIfAbsent(chunkKey(seq, chunks), checkedFrame({ seq, chunk: chunks, pairs: chunk } satisfies WireChunk));
      chunk = [];
      bytes = 0;
    };
    for await (const batch of entries) {
      for (const [k, v] of batch) {
        chunk.push([k, v]);
        bytes += k.length + v.length;
        keys++;
        if (bytes >= CHUNK_BYTES) await flush();
      }
    }
    await flush();
    const manifest: CheckpointManifest = { seq, chunks, keys, createdAt: now, txn };
    await this.store.putIfAbsent(manifestKey(seq), checkedFrame(manifest));
    return manifest;
  }

  /** Every checkpoint in the store, oldest first. */
  async list(): Promise<StoredCheckpoint[]> {
    const bySeq = new Map<number, StoredCheckpoint>();
    for await (const { key, lastModified } of this.store.list(CHECKPOINT_PREFIX)) {
      const m = /^checkpoints\/(\d{20})\/(.+)$/.exec(key);
      if (!m) continue;
      const seq = Number(m[1]);
      let c = bySeq.get(seq);
      if (c === undefined) bySeq.set(seq, (c = { seq: kvSeq(seq), complete: false, keys: [], lastModified: 0 }));
      c.keys.push(key);
      c.complete ||= m[2] === 'manifest';
      c.lastModified = Math.max(c.lastModified, lastModified);
    }
    return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  }

  /**
   * Deletes a stored checkpoint, the manifest first and alone (S3 deletes a batch in no set order): one
   * interrupted half-way is left incomplete, and never looks complete with chunks missing.
   */
  async delete(c: StoredCheckpoint): Promise<void> {
    const manifest = manifestKey(c.seq);
    await this.store.delete(c.keys.filter((k) => k === manifest));
    await this.store.delete(c.keys.filter((k) => k !== manifest));
  }

  /**
   * The complete checkpoints of those taken at a sequence `usable` accepts, newest first, each manifest read
   * when the caller gets to it: a caller that finds one damaged goes on to the next. A damaged manifest is
   * thrown as CORRUPT when its turn comes.
   */
  async *newestFirst(usable: (seq: KvSeq) => Promise<boolean>): AsyncGenerator<CheckpointManifest> {
    for (const c of (await this.list()).filter((s) => s.complete).reverse()) {
      if (!(await usable(c.seq))) continue;
      const key = manifestKey(c.seq);
      const bytes = await this.store.get(key);
      if (bytes !== undefined) yield manifestOf(key, bytes, c.seq);
    }
  }

  /** The checkpoint's entries, one chunk at a time: memory holds one chunk, however large the catalog. */
  async *read(m: CheckpointManifest): AsyncGenerator<[Uint8Array, Uint8Array][]> {
    for (let n = 1; n <= m.chunks; n++) {
      const key = chunkKey(m.seq, n);
      const bytes = await this.store.get(key);
      if (bytes === undefined) throw corrupt(key, `it is missing, and the manifest lists ${m.chunks} chunks`);
      yield chunkPairs(key, bytes, m.seq, n);
    }
  }
}
