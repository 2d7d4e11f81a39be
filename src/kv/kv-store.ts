// The local index: a LevelDB directory that holds the applied prefix of the commit log. Every write is one
// atomic batch that also records the kv sequence it brings the index to, so "which entries are applied" and
// "what they changed" can never disagree, whatever point a crash hits.
import { Level } from 'level';
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { encodeKey, type Key } from '../../keys/key-codec.js';
import { SystemKey, Tag } from '../../keys/tags.js';
import { StrataError } from '../errors.js';
import { type Db, ReadView } from './read-view.js';
import { SnapshotTimeline } from './snapshot-timeline.js';
import { VersionCache } from './version-cache.js';

export type Mutation = { type: 'put'; key: Key; value: Uint8Array } | { type: 'del'; key: Key };

export const systemKey = (k: SystemKey): Key => encodeKey(Tag.System, [k]);
const APPLIED_SEQ_KEY = systemKey(SystemKey.AppliedSeq);

function encodeSeq(seq: KvSeq): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(seq));
  return b;
}

function decodeSeq(bytes: Uint8Array | undefined): KvSeq {
  if (bytes === undefined) return kvSeq(0);
  if (bytes.length !== 8) {
    throw new StrataError('CORRUPT', `the index's applied sequence is ${bytes.length} bytes, expected 8; rebuild the index from the store`);
  }
  return kvSeq(Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0)));
}

export class KvStore {
  private constructor(
    private readonly db: Db,
    private readonly cache: VersionCache,
    private readonly timeline: SnapshotTimeline,
  ) {}

  static async open(path: string): Promise<KvStore> {
    const db: Db = new Level<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
    try {
      await db.open();
    } catch (e) {
      const cause = (e as { cause?: { message?: string } }).cause;
      throw new StrataError(
        'STORE_UNAVAILABLE',
        `cannot open the local index at ${path}: ${cause?.message ?? (e as Error).message}. ` +
          'Another process may hold it open; give each process its own index directory.',
        { cause: e },
      );
    }
    const applied = decodeSeq(db.getSync(APPLIED_SEQ_KEY) ?? undefined);
    return new KvStore(db, new VersionCache(applied), new SnapshotTimeline(applied));
  }

  async appliedSeq(): Promise<KvSeq> {
    return decodeSeq(this.db.getSync(APPLIED_SEQ_KEY) ?? undefined);
  }

  /**
   * Applies log entry `seq` as one atomic batch. Entries must arrive in order; the log, not this index, is the
   * source of truth, so the batch is not fsync'd: after a crash the entry is simply replayed.
   */
  async apply(seq: KvSeq, mutations: readonly Mutation[]): Promise<void> {
    const applied = await this.appliedSeq();
    if (seq !== applied + 1) {
      throw new StrataError('CORRUPT', `log entry ${seq} cannot follow applied entry ${applied}; rebuild the index from the store`);
    }
    // In-memory mirrors learn of the entry before its batch lands, so no reader can see it without them.
    this.cache.beginApply(mutations);
    this.timeline.beginApply(mutations);
    let done: KvSeq | undefined;
    try {
      await this.db.batch([...mutations, { type: 'put', key: APPLIED_SEQ_KEY, value: encodeSeq(seq) }], { sync: false });
      done = seq;
    } finally {
      this.cache.endApply(done);
      this.timeline.endApply(done);
    }
  }

  async readView(): Promise<ReadView> {
    const snapshot = this.db.snapshot();
    try {
      const seq = decodeSeq(this.db.getSync(APPLIED_SEQ_KEY, { snapshot }) ?? undefined);
      return new ReadView(this.db, snapshot, seq, this.cache, this.timeline);
    } catch (e) {
      await snapshot.close();
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
