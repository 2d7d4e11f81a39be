// A frozen view of the local index: an explicit LevelDB snapshot plus the kv sequence it reflects, read from
// inside that snapshot. Everything a reader or a transaction sees comes through one of these, so two reads
// of one view can never straddle a write.
import type { Level } from 'level';
import type { KvSeq } from '../../keys/ids.js';
import { decodeKey, type Field, type Key, keyPrefix, prefixEnd } from '../../keys/key-codec.js';
import type { Tag } from '../../keys/tags.js';
import { beginOf, decodeRow } from './decode.js';
import { type CachedVersion, groupId, isCachedGroup, type VersionCache } from './version-cache.js';

export type Db = Level<Uint8Array, Uint8Array>;
type DbSnapshot = ReturnType<Db['snapshot']>;

export interface Range {
  gte: Key;
  lt?: Key;
  lte?: Key;
  reverse?: boolean;
  limit?: number;
}

/** Entries fetched per native call; large enough to amortise the crossing, small enough to bound memory. */
const SCAN_BATCH = 256;

export class ReadView {
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly snapshot: DbSnapshot,
    /** The last log entry whose effects this view contains. */
    readonly seq: KvSeq,
    private readonly cache: VersionCache,
  ) {}

  /**
   * Every version under `keyPrefix(tag, fields)`, decoded, in key order. Metadata groups (see
   * version-cache.ts) come from memory when they can; the caller must not modify what it gets.
   */
  async group(tag: Tag, fields: readonly Field[]): Promise<readonly CachedVersion[]> {
    const prefix = keyPrefix(tag, fields);
    const id = isCachedGroup(tag, fields.length) ? groupId(prefix) : undefined;
    const hit = id === undefined ? undefined : this.cache.get(id);
    if (hit !== undefined) return hit;
    const versions: CachedVersion[] = [];
    for await (const [key, bytes] of this.scan({ gte: prefix, lt: prefixEnd(prefix) })) {
      versions.push(Object.freeze({ key, fields: decodeKey(key).fields, begin: beginOf(key), row: Object.freeze(decodeRow(key, bytes)) }));
    }
    if (id !== undefined) this.cache.offer(id, versions, this.seq);
    return versions;
  }

  /**
   * A point read. Synchronous on purpose: a LevelDB get is microseconds from its cache, while a trip through
   * the thread pool costs tens of microseconds; callers stay async so this may change.
   */
  async get(key: Key): Promise<Uint8Array | undefined> {
    this.assertOpen();
    return this.db.getSync(key, { snapshot: this.snapshot }) ?? undefined;
  }

  /** Entries in key order (or reverse), fetched in batches: memory stays bounded however long the range. */
  async *scan(range: Range): AsyncGenerator<[Key, Uint8Array]> {
    this.assertOpen();
    const it = this.db.iterator({ ...range, limit: range.limit ?? -1, snapshot: this.snapshot });
    try {
      for (;;) {
        const batch = await it.nextv(SCAN_BATCH);
        if (batch.length === 0) return;
        for (const entry of batch) yield entry as [Key, Uint8Array];
      }
    } finally {
      await it.close();
    }
  }

  /** The greatest entry in [gte, lte]: "the newest version at or below S" when lte ends in S. */
  async last(gte: Key, lte: Key): Promise<[Key, Uint8Array] | undefined> {
    this.assertOpen();
    const it = this.db.iterator({ gte, lte, reverse: true, limit: 1, snapshot: this.snapshot });
    try {
      return (await it.next()) as [Key, Uint8Array] | undefined;
    } finally {
      await it.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.snapshot.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('read view used after close');
  }
}
