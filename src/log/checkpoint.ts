// A checkpoint is the whole keyspace at one kv sequence, as sorted chunks plus a manifest, so a new machine
// starts from the newest checkpoint and replays only the log after it. The manifest is written last: a
// checkpoint without one is incomplete and ignored. Chunks and manifest are created once and never changed.
//
//   checkpoints/<seq, 20 digits>/chunk-<n, 6 digits>   framed MessagePack [[key, value], …], in key order
//   checkpoints/<seq, 20 digits>/manifest              framed { seq, chunks, keys, createdAt }
import { FrameError, frame, unframe } from '../../keys/framing.js';
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';

const PREFIX = 'checkpoints/';
/** Bytes of keys and values per chunk: large enough for few requests, small enough to stream. */
const CHUNK_BYTES = 4 << 20;

export interface CheckpointManifest {
  seq: KvSeq;
  chunks: number;
  keys: number;
  createdAt: number;
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

const dir = (seq: KvSeq) => `${PREFIX}${String(seq).padStart(20, '0')}`;
const chunkKey = (seq: KvSeq, n: number) => `${dir(seq)}/chunk-${String(n).padStart(6, '0')}`;
const manifestKey = (seq: KvSeq) => `${dir(seq)}/manifest`;

function decode<T>(key: string, bytes: Uint8Array): T {
  try {
    return unframe(bytes) as T;
  } catch (e) {
    if (!(e instanceof FrameError)) throw e;
    throw new StrataError('CORRUPT', `checkpoint object ${key} cannot be read: ${e.message}`, { cause: e });
  }
}

/** The checkpoints of one store: the only code that knows their layout. */
export class Checkpoints {
  constructor(private readonly store: ObjectStore) {}

  /** Writes the entries (in key order) as a checkpoint at `seq`; returns its manifest. */
  async write(seq: KvSeq, entries: AsyncIterable<[Uint8Array, Uint8Array][]>, now: number): Promise<CheckpointManifest> {
    let chunk: [Uint8Array, Uint8Array][] = [];
    let bytes = 0;
    let chunks = 0;
    let keys = 0;
    const flush = async () => {
      if (chunk.length === 0) return;
      // Create-if-absent: two processes checkpointing the same sequence write the same bytes; either wins.
      await this.store.putIfAbsent(chunkKey(seq, ++chunks), frame(chunk));
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
    const manifest: CheckpointManifest = { seq, chunks, keys, createdAt: now };
    await this.store.putIfAbsent(manifestKey(seq), frame(manifest));
    return manifest;
  }

  /** Every checkpoint in the store, oldest first. */
  async list(): Promise<StoredCheckpoint[]> {
    const bySeq = new Map<number, StoredCheckpoint>();
    for await (const { key, lastModified } of this.store.list(PREFIX)) {
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

  /** The newest complete checkpoint of those taken at a sequence `usable` accepts, if any. */
  async newest(usable: (seq: KvSeq) => Promise<boolean>): Promise<CheckpointManifest | undefined> {
    for (const c of (await this.list()).filter((s) => s.complete).reverse()) {
      if (!(await usable(c.seq))) continue;
      const key = manifestKey(c.seq);
      const bytes = await this.store.get(key);
      return bytes === undefined ? undefined : { ...decode<CheckpointManifest>(key, bytes), seq: c.seq };
    }
    return undefined;
  }

  /** The checkpoint's entries, one chunk at a time: memory holds one chunk, however large the catalog. */
  async *read(m: CheckpointManifest): AsyncGenerator<[Uint8Array, Uint8Array][]> {
    for (let n = 1; n <= m.chunks; n++) {
      const key = chunkKey(m.seq, n);
      const bytes = await this.store.get(key);
      if (bytes === undefined) throw new StrataError('CORRUPT', `checkpoint ${m.seq} lacks ${key}; its manifest lists ${m.chunks} chunks`);
      yield decode<[Uint8Array, Uint8Array][]>(key, bytes);
    }
  }
}
