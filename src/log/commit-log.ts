// The commit log is the source of truth (docs/decisions/0001-log-is-source-of-truth.md): a gap-free sequence
// of entries, each owned by exactly one writer, and the checkpoints that let a new machine skip most of it.
// Where and how entries are stored is a layout's business (object-log.ts: one object per entry;
// segment-log.ts: records appended to segment files under a lock; open-log.ts picks one); everything
// above sees only this interface, which every layout passes the same conformance suite for
// (test/log/conformance/).
import type { KvSeq } from '../../keys/ids.js';
import type { Checkpoints } from './checkpoint.js';
import type { LogEntry } from './log-entry.js';

export interface AppendOptions {
  overlap?: boolean;
  /**
   * Whether the writer may not know the log's end (it did not ask the store first, decision 0057): then an
   * entry numbered after this one, there already, that does not follow it shows the number was a gap left by
   * a deleted entry. Asked of the store beside the write, in the same round trip; a log whose writes check
   * the tail themselves (segments) has no gap to fill.
   */
  mayFillGap?: boolean;
  /**
   * Whether another writer may be waiting for its turn (none can while this one holds the writer epoch): a
   * log whose turns are objects looks for them now and then beside the write (decision 0060).
   */
  othersMayWait?: boolean;
}

export interface CommitLog {
  /** Where the log lives, for messages (never credentials). */
  readonly description: string;
  /** How its entries are laid out in the store (recorded at creation, `log-layout`). */
  readonly layout: 'objects' | 'segments';

  /**
   * Writes entry `entry.seq` if no writer owns that sequence number yet: true if this call wrote it, false
   * if it was taken. Create-if-absent is the only coordination between writers.
   */
  append(entry: LogEntry): Promise<boolean>;

  /**
   * Writes entry `entry.seq` as its writer: true when this call's write is the entry in the log, false when
   * another writer owns the number. A write with no clear answer (the store failed, timed out or dropped
   * the response after writing) is settled inside the call by reading the entry back and comparing its
   * `txn`, then by trying again, so a commit lands exactly once; when even that cannot tell,
   * STORE_UNAVAILABLE. A number found taken at the first try was lost to another writer: a caller never
   * hands one entry to two calls (each commit attempt has its own `txn`). With `overlap`, other work of this
   * process waits to run meanwhile, so a wait for the disk should not hold the thread. With `mayFillGap`, a
   * write that filled a gap is taken back and CORRUPT, naming the gap.
   */
  appendOwn(entry: LogEntry, opts?: AppendOptions): Promise<boolean>;

  /**
   * Runs `fn` as the only appender of the log where the layout can promise it (segments: under the append
   * lock, which every other writer waits for), so an append made inside it cannot lose the race; elsewhere
   * (objects) `fn` runs as it is. What a writer that lost does next (decision 0060): it catches up and tries
   * again inside its turn, so it lands however fast the others are. `meanwhile` runs at each look of the
   * wait (reading what the others wrote, so that little is left to read inside the turn).
   */
  turn<T>(fn: () => Promise<T>, meanwhile?: () => Promise<void>): Promise<T>;

  /** Whether this process saw another writer waiting for its turn within the last `ms`. */
  sawWaiterWithin(ms: number): boolean;

  /**
   * Entry `seq`, or undefined if the log has none there. A damaged entry, or one that names another number,
   * is CORRUPT naming it.
   */
  read(seq: KvSeq): Promise<LogEntry | undefined>;

  /**
   * When entry `seq` was written, by the store's clock (ms since epoch; S3 gives whole seconds), or undefined
   * if the log has none there. Log compaction rewrites an entry, which moves its time later.
   */
  writtenAt(seq: KvSeq): Promise<number | undefined>;

  /**
   * Entries after `seq`, in order, to the end of the log. A gap — an entry missing while a later one exists —
   * is CORRUPT naming the missing entry, never the end of the log. The next entry after a missing one is
   * always looked for; with `thorough` (open, bootstrap), every later one is, so a gap of any length is found.
   */
  readAfter(seq: KvSeq, opts?: { thorough?: boolean }): AsyncGenerator<LogEntry>;

  /**
   * The newest entry's sequence number, reading forward from `from` (a number known to exist, or 0); a gap
   * right after the newest (the next entry missing, the one after it there) is CORRUPT, as for readAfter.
   */
  head(from: KvSeq): Promise<KvSeq>;

  /**
   * Log compaction (docs/decisions/0006): the entries from 2 through `through`, which a checkpoint covers,
   * lose what they carry while their sequence numbers stay taken, so no writer can create them again and
   * a reader meets a stub (kind `stub`) where an entry was. Resumable: entries already stubbed are skipped.
   * A `through` the log does not hold is INVALID_ARGUMENT: stubs past the head would take numbers that no
   * writer wrote.
   */
  compact(through: KvSeq): Promise<void>;

  /** How far log compaction got: every entry from 2 through the returned one is a stub (0: none). */
  compactedThrough(): Promise<KvSeq>;

  /** The checkpoints beside this log. */
  readonly checkpoints: Checkpoints;

  /** Lets go of what the layout holds open (file descriptors, a lock file); the object layout holds none. */
  close?(): void;
}
