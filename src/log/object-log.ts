// The object layout of the commit log: entry N is the object `log/<N, 20 digits>`, written create-if-absent,
// so two writers can never both own N. For S3 and for directories shared between machines, where
// create-if-absent of an object is the one atomic step every host agrees on.
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';
import { Checkpoints } from './checkpoint.js';
import type { AppendOptions, CommitLog } from './commit-log.js';
import { compactedThrough, markCompacted } from './compaction-marks.js';
import { decodeEntry, encodeEntry, type LogEntry } from './log-entry.js';
import { Turns } from './turns.js';

export const LOG_PREFIX = 'log/';
/** Entries log compaction stubs at once: one request each, so a long log goes in parallel batches. */
const COMPACT_BATCH = 16;
/**
 * How many times appendOwn tries a create whose outcome it could not learn. Each try is a create and a
 * read-back, each bounded by the store (S3: timeoutMs, T): a commit against a service that answers nothing
 * fails within 2T (the read-back fails too, which ends it), against one that answers reads but not writes
 * within 2 × 2T.
 */
const APPEND_ATTEMPTS = 2;

/**
 * Entry reads a catch-up has in flight at most: a round trip per this many entries, and memory for this many
 * (an entry of a 100,000-file commit is ~24 MB; most are a few KB).
 */
const READ_AHEAD = 16;

const padded = (seq: number) => String(seq).padStart(20, '0');

export function logObjectKey(seq: KvSeq): string {
  return `${LOG_PREFIX}${padded(seq)}`;
}

export class ObjectLog implements CommitLog {
  readonly checkpoints: Checkpoints;
  readonly layout = 'objects';

  private readonly turns: Turns;
  /** Whether this process's writer is in its turn (it looks for no marks beside its creates then). */
  private inTurn = false;

  constructor(private readonly store: ObjectStore) {
    this.checkpoints = new Checkpoints(store);
    this.turns = new Turns(store);
  }

  get description(): string {
    return this.store.description;
  }

  async append(entry: LogEntry): Promise<boolean> {
    return this.store.putIfAbsent(logObjectKey(entry.seq), encodeEntry(entry));
  }

  async turn<T>(fn: () => Promise<T>, meanwhile?: () => Promise<void>): Promise<T> {
    this.inTurn = true;
    try {
      return await this.turns.run(fn, meanwhile);
    } finally {
      this.inTurn = false;
    }
  }

  sawWaiterWithin(ms: number): boolean {
    return this.turns.sawWaiterWithin(ms);
  }

  async appendOwn(entry: LogEntry, opts: AppendOptions = {}): Promise<boolean> {
    const looking = this.inTurn || opts.othersMayWait !== true ? undefined : this.turns.beside();
    try {
      if (opts.mayFillGap !== true) return await this.created(entry);
      // The next entry is read beside the create: one there already either follows this one (its writer read
      // this one first) or was written after an entry of this number that is gone.
      const next = this.store.get(logObjectKey(kvSeq(entry.seq + 1)));
      next.catch(() => undefined);
      const won = await this.created(entry);
      if (won) await this.notIntoAGap(entry, next);
      return won;
    } finally {
      await looking;
    }
  }

  /**
   * A created entry `entry` whose number was a gap — the next entry, read beside the create (`next`), was
   * there and follows another entry of that number — is deleted again and CORRUPT: the log stays as damaged
   * as it was, and nothing is acknowledged on it. When the next entry cannot be read (or is damaged, which
   * its readers will say), the create stands: it happened, and failing the commit would invite a retry that
   * commits it twice.
   */
  private async notIntoAGap(entry: LogEntry, next: Promise<Uint8Array | undefined>): Promise<void> {
    const after = await next
      .then((bytes) => (bytes === undefined ? undefined : decodeEntry(`log object ${logObjectKey(kvSeq(entry.seq + 1))}`, bytes)))
      .catch(() => undefined);
    // Entries written after an index restored from an old checkpoint name no predecessor ('').
    if (after === undefined || after.prev === '' || after.prev === entry.txn) return;
    const taken = await this.store.delete([logObjectKey(entry.seq)]).then(
      () => 'it was deleted again',
      (e: unknown) => `deleting it again failed (${(e as Error).message}): delete ${logObjectKey(entry.seq)} by hand before restoring`,
    );
    throw this.gap(entry.seq, after.seq, `this commit was written into it and ${taken}, so nothing was committed`);
  }

  /** appendOwn's create: settled by reading the entry back when the store gave no clear answer. */
  private async created(entry: LogEntry): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (await this.append(entry)) return true;
        // After a failed try, "exists" may be our own earlier create that landed late.
        return attempt > 1 && (await this.read(entry.seq))?.txn === entry.txn;
      } catch (e) {
        // A read-back that fails too leaves the outcome unknown: trying again would only wait longer.
        let there: LogEntry | undefined;
        let unknown = false;
        try {
          there = await this.read(entry.seq);
        } catch {
          unknown = true;
        }
        if (there !== undefined) return there.txn === entry.txn;
        if (unknown || attempt >= APPEND_ATTEMPTS) {
          throw new StrataError(
            'STORE_UNAVAILABLE',
            `writing log entry ${entry.seq} failed ${attempt} time${attempt === 1 ? '' : 's'} and reading it back ${unknown ? 'failed too' : 'found nothing'}, so the commit ` +
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
    const entry = decodeEntry(`log object ${key}`, bytes);
    if (entry.seq !== seq) {
      throw new StrataError('CORRUPT', `log object ${key} holds entry ${entry.seq}; the store's log is damaged`);
    }
    return entry;
  }

  async writtenAt(seq: KvSeq): Promise<number | undefined> {
    return (await this.store.info(logObjectKey(seq)))?.lastModified;
  }

  /**
   * The entries after `seq`, in order. Each is a round trip, so while entries keep coming the reads go ahead
   * of the one being handed out, one more after each (up to READ_AHEAD): catching up on a long log takes a
   * round trip per READ_AHEAD entries, not per entry; one new entry costs what it did read one by one, and a
   * few cost a few reads past the end more (each a billed 404 on S3).
   * Every entry that existed when the call began is read: each read is asked for after that.
   */
  async *readAfter(seq: KvSeq, opts: { thorough?: boolean } = {}): AsyncGenerator<LogEntry> {
    const ahead = new Map<KvSeq, Promise<LogEntry | undefined>>();
    const readAhead = (s: KvSeq) => {
      let read = ahead.get(s);
      if (read === undefined) {
        read = this.read(s);
        // Read ahead of need: a failure counts only once the entry is needed.
        read.catch(() => undefined);
        ahead.set(s, read);
      }
      return read;
    };
    /** An entry's read, from what was read ahead when it was: each is taken once. */
    const take = (s: KvSeq) => {
      const read = readAhead(s);
      ahead.delete(s);
      return read;
    };
    let width = 1;
    for (let next = kvSeq(seq + 1); ; ) {
      for (let s = next; s < next + width; s++) readAhead(kvSeq(s));
      const entry = await take(next);
      if (entry !== undefined) {
        yield entry;
        next = kvSeq(next + 1);
        width = Math.min(READ_AHEAD, width + 1);
      } else if (await this.atEnd(next, opts.thorough === true, async (s) => (await take(s)) !== undefined)) return;
    }
  }

  async head(from: KvSeq): Promise<KvSeq> {
    let head = from;
    // The probe of the entry after the next goes with it, so finding the end costs one round trip.
    for (;;) {
      const [next, after] = await Promise.all([this.exists(kvSeq(head + 1)), this.exists(kvSeq(head + 2))]);
      if (next) head = kvSeq(head + (after ? 2 : 1));
      else if (!after || !(await this.exists(kvSeq(head + 1)))) {
        if (after) throw this.gap(kvSeq(head + 1), kvSeq(head + 2));
        return head;
      }
      // With `after` missing the next round asks whether the one beyond is there (a gap) or not (the end);
      // with `next` there on a second look, it was written between the two probes.
    }
  }

  private async exists(seq: KvSeq): Promise<boolean> {
    return (await this.store.get(logObjectKey(seq))) !== undefined;
  }

  /**
   * Entry `missing` was not there: true at the end of the log, false if it is there on a second look (it was
   * being written), CORRUPT if it is still missing while a later entry exists (a gap). A later entry can only
   * have been written after `missing` was (its writer read it first), so once a later one is seen, a second
   * look at `missing` — asked for after it — tells a race from a deletion. The next entry is always probed
   * (`existsNext`: a read made ahead will do); a thorough check lists the log past it (one LIST, for open and
   * bootstrap).
   */
  private async atEnd(missing: KvSeq, thorough: boolean, existsNext: (seq: KvSeq) => Promise<boolean>): Promise<boolean> {
    let later: KvSeq | undefined;
    if (await existsNext(kvSeq(missing + 1))) later = kvSeq(missing + 1);
    else if (thorough) {
      // Stryker disable next-line ArithmeticOperator: `missing` and the one after it were both just found absent
      for await (const o of this.store.list(LOG_PREFIX, { startAfter: logObjectKey(kvSeq(missing + 1)) })) {
        const n = Number(o.key.slice(LOG_PREFIX.length));
        if (Number.isSafeInteger(n) && n > missing) later = kvSeq(n);
        break;
      }
    }
    if (later === undefined) return true;
    if (await this.exists(missing)) return false;
    throw this.gap(missing, later);
  }

  /** A gap at `missing`; `filled` says what a writer that wrote into it did about it. */
  private gap(missing: KvSeq, later: KvSeq, filled?: string): StrataError {
    return new StrataError(
      'CORRUPT',
      `log entry ${missing} (${logObjectKey(missing)}) is missing from ${this.description} although entry ${later} exists: ` +
        `the log has a gap, so nothing after it can be trusted and no writer may fill it${filled === undefined ? '' : ` (${filled})`}; ` +
        'restore the missing entry from a backup (strata verify lists what else is damaged)',
    );
  }

  /** Replaces each entry with a stub object (its bytes leave the store, its name stays taken), then marks how far it got. */
  async compact(through: KvSeq): Promise<void> {
    if ((await this.read(through)) === undefined) {
      throw new StrataError('INVALID_ARGUMENT', `log entry ${through} does not exist in ${this.description}, so the log cannot be compacted through it`);
    }
    const from = Math.max(2, (await this.compactedThrough()) + 1);
    for (let at = from; at <= through; at += COMPACT_BATCH) {
      const last = Math.min(through, at + COMPACT_BATCH - 1);
      await Promise.all(Array.from({ length: last - at + 1 }, (_, i) => this.stub(kvSeq(at + i))));
    }
    if (through >= from) await markCompacted(this.store, through);
  }

  /** The entry without its mutations: its number and its place in the chain (txn, prev) stay. */
  private async stub(seq: KvSeq): Promise<void> {
    const entry = await this.read(seq);
    if (entry === undefined || entry.kind === 'stub') return;
    await this.store.replace(logObjectKey(seq), encodeEntry({ ...entry, kind: 'stub', epoch: 0, snapshots: [], mutations: [] }));
  }

  compactedThrough(): Promise<KvSeq> {
    return compactedThrough(this.store);
  }
}
