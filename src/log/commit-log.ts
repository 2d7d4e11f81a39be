// The commit log on the object store is the source of truth (docs/decisions/0001-log-is-source-of-truth.md):
// entry N is the object `log/<N, 20 digits>`, written create-if-absent, so two writers can never both own N.
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';
import { decodeEntry, encodeEntry, type LogEntry } from './log-entry.js';

const LOG_PREFIX = 'log/';
/** `compacted/<N, 20 digits>`: log compaction has stubbed every entry from 2 through N. */
const COMPACTED_PREFIX = 'compacted/';

export function logObjectKey(seq: KvSeq): string {
  return `${LOG_PREFIX}${String(seq).padStart(20, '0')}`;
}

export class CommitLog {
  constructor(readonly store: ObjectStore) {}

  /** Writes entry `entry.seq`; false if another writer already owns that sequence number. */
  async append(entry: LogEntry): Promise<boolean> {
    return this.store.putIfAbsent(logObjectKey(entry.seq), encodeEntry(entry));
  }

  /**
   * Writes entry `entry.seq` as its writer: true when the entry in the store is this one. A create with no
   * clear answer (the store failed, timed out or dropped the response after writing) is settled by
   * reading the entry back and comparing its `txn`, then by trying again, so a commit lands exactly once.
   */
  async appendOwn(entry: LogEntry, attempts = 3): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (await this.append(entry)) return true;
        // After a failed try, "exists" may be our own earlier create that landed late.
        return attempt > 1 && (await this.read(entry.seq))?.txn === entry.txn;
      } catch (e) {
        const there = await this.read(entry.seq).catch(() => undefined);
        if (there !== undefined) return there.txn === entry.txn;
        if (attempt >= attempts) {
          throw new StrataError(
            'STORE_UNAVAILABLE',
            `writing log entry ${entry.seq} failed ${attempts} times and reading it back found nothing, so the commit ` +
              `may or may not have been written (${(e as Error).message}); once the store answers, refresh() and ` +
              'look for it in snapshots() before running it again',
            { cause: e },
          );
        }
      }
    }
  }

  async read(seq: KvSeq): Promise<LogEntry | undefined> {
    const key = logObjectKey(seq);
    const bytes = await this.store.get(key);
    if (bytes === undefined) return undefined;
    const entry = decodeEntry(key, bytes);
    if (entry.seq !== seq) {
      throw new StrataError('CORRUPT', `log object ${key} holds entry ${entry.seq}; the store's log is damaged`);
    }
    return entry;
  }

  /**
   * Replaces entry `seq` with a stub of kind `compacted` (docs/decisions/0006): its bytes leave the store,
   * its slot stays taken, so no writer can create it again.
   */
  async compact(seq: KvSeq): Promise<void> {
    await this.store.replace(logObjectKey(seq), encodeEntry({ seq, kind: 'compacted', epoch: 0, snapshots: [], txn: '', mutations: [] }));
  }

  /** How far log compaction got: every entry from 2 through the returned one is a stub (0: none). */
  async compactedThrough(): Promise<KvSeq> {
    let through = 0;
    for await (const { key } of this.store.list(COMPACTED_PREFIX)) through = Math.max(through, Number(key.slice(COMPACTED_PREFIX.length)));
    return kvSeq(through);
  }

  /** Records that every entry from 2 through `seq` is a stub, so the next run starts after it; older marks go. */
  async markCompacted(seq: KvSeq): Promise<void> {
    const key = `${COMPACTED_PREFIX}${String(seq).padStart(20, '0')}`;
    await this.store.putIfAbsent(key, new Uint8Array(0));
    const older: string[] = [];
    for await (const o of this.store.list(COMPACTED_PREFIX)) if (o.key < key) older.push(o.key);
    await this.store.delete(older);
  }

  /**
   * Entries after `seq`, in order, until the first missing one. Sequence numbers are gap-free because a
   * writer only claims N+1 after it has seen N.
   */
  async *readAfter(seq: KvSeq): AsyncGenerator<LogEntry> {
    for (let next = kvSeq(seq + 1); ; next = kvSeq(next + 1)) {
      const entry = await this.read(next);
      if (entry === undefined) return;
      yield entry;
    }
  }
}
