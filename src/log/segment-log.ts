// The segmented layout of the commit log (docs/DESIGN.md §3, docs/decisions/0014), for a directory on a local disk:
// entries are records appended to segment files, and processes on one host take turns through an advisory
// lock (flock(2) on `segments/LOCK`) held while appending. The lock plus "the tail is still where I read it"
// is this layout's create-if-absent: a writer appends entry N only if the log ends at N-1 under the lock. A
// durable append costs one fdatasync, where a new object costs two syncs (its data, then its directory).
//
//   segments/<first seq, 20 digits>.seg   records, first seq ascending, no gaps (segment-file.ts: sectors that
//                                         each name their record and carry a CRC; old segments: header + entry)
//   segments/LOCK                         flock'ed by appenders; holds a generation that moves whenever a
//                                         segment is created or replaced, so a writer knows to look again
//
// Space is written as zeros ahead of the records (decision 0051), so a durable append syncs bytes the file
// already has. A torn record — what a crash leaves of an append: some of its sectors written, the others
// zeros, or the file ending inside it — is not an entry: readers stop before it, and the next lock holder
// cuts it off, with whatever sectors of later appends a crash left past it. Anything else that fails a check,
// at the tail too, is CORRUPT naming the entry: a sector that fails its CRC (no single flipped bit makes a
// written sector zeros, so damage never passes for a crash), a record naming another seq, a complete entry
// whose frame fails. Entry 1 has a segment of its own; later segments roll past `rollBytes`, and are written
// whole to a temporary name and linked into place, so a segment never exists without its first record.
// Log compaction replaces each segment a checkpoint covers by one of stubs, under the lock.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';
import { Checkpoints } from './checkpoint.js';
import type { AppendOptions, CommitLog } from './commit-log.js';
import { compactedThrough, markCompacted } from './compaction-marks.js';
import { decodeEntry, type LogEntry } from './log-entry.js';
import { decodeHead, encodeRecord, entriesIn, recordBody, type Segment, SEGMENTS_DIR, segmentName } from './segment-file.js';
import { SegmentFiles } from './segment-files.js';
import { AppendLock } from './segment-lock.js';
import { randomHex } from '../random.js';
import { LastSeen } from '../last-seen.js';

const TMP_PREFIX = 'tmp-';
/** Segments roll past this size (64 MiB): big enough that rolls are rare, small enough to scan on open. */
const DEFAULT_ROLL_BYTES = 64 << 20;
/**
 * Space written (as zeros) ahead of the records at a time: a sync of a record written over it does not
 * grow the file, so it need not commit the file system's journal (decision 0051). A record this big or
 * bigger is written past the end instead: its own bytes cost more than the journal.
 */
const AHEAD_BYTES = 1 << 20;
const AHEAD = Buffer.alloc(AHEAD_BYTES);

// Looked up on each call (not promisified once), so a test's fault-injecting file system sees every sync.
const fdatasync = (fd: number) => new Promise<void>((resolve, reject) => fs.fdatasync(fd, (e) => (e ? reject(e) : resolve())));

export interface SegmentLogOptions {
  /** fdatasync each append (default true); false is the opt-in relaxed mode: atomic by checksum, not durable. */
  sync?: boolean;
  /** A segment that has reached this many bytes takes no more records (default 64 MiB). */
  rollBytes?: number;
}

export class SegmentLog implements CommitLog {
  readonly checkpoints: Checkpoints;
  readonly layout = 'segments';
  readonly description: string;
  private readonly dir: string;
  private readonly sync: boolean;
  private readonly rollBytes: number;
  private readonly files: SegmentFiles;
  private readonly lock: AppendLock;
  /** The writer's handle on the tail segment, and the lock generation it was opened at. */
  private tail: Tail | undefined;
  /** Whether this handle holds the lock for a writer's turn (see turn). */
  private inTurn = false;
  /** When an append last let a waiting writer in first. */
  private readonly waiterSeen = new LastSeen();
  /**
   * The newest entry this handle knows to be on disk with every record of its segment before it: a sync of
   * the segment's file (any descriptor's) returned after it was written. What the lock file says as synced.
   */
  private synced = 0;

  constructor(
    private readonly store: ObjectStore,
    /** The directory whose files are the store's objects (store.localRoot): the segments go beside them. */
    localRoot: string,
    opts: SegmentLogOptions = {},
  ) {
    this.checkpoints = new Checkpoints(store);
    this.dir = path.join(localRoot, SEGMENTS_DIR);
    this.sync = opts.sync ?? true;
    this.rollBytes = opts.rollBytes ?? DEFAULT_ROLL_BYTES;
    this.description = `${store.description}, segmented log`;
    this.lock = new AppendLock(this.dir, this.sync);
    this.files = new SegmentFiles(
      this.dir,
      this.description,
      () => this.lock.peek(),
      () => this.lock.heldElsewhere(),
    );
  }

  read(seq: KvSeq): Promise<LogEntry | undefined> {
    return this.files.read(seq);
  }

  writtenAt(seq: KvSeq): Promise<number | undefined> {
    return this.files.writtenAt(seq);
  }

  readAfter(seq: KvSeq): AsyncGenerator<LogEntry> {
    return this.files.readAfter(seq);
  }

  head(from: KvSeq): Promise<KvSeq> {
    return this.files.head(from);
  }

  sawWaiterWithin(ms: number): boolean {
    return this.waiterSeen.within(ms);
  }

  async turn<T>(fn: () => Promise<T>, meanwhile?: () => Promise<void>): Promise<T> {
    // What the catch-up meanwhile met (a damaged entry, an index that cannot be written) is its own error.
    let met: unknown;
    const caughtUp = async () => {
      try {
        await meanwhile?.();
      } catch (e) {
        throw (met = e);
      }
    };
    try {
      await this.lock.take({ waiting: true, meanwhile: caughtUp });
    } catch (e) {
      throw e === met ? e : this.files.unavailable('the log lock could not be taken', e);
    }
    this.inTurn = true;
    try {
      return await fn();
    } finally {
      this.inTurn = false;
      this.lock.release();
    }
  }

  async append(entry: LogEntry, opts: AppendOptions = {}): Promise<boolean> {
    const record = encodeRecord(entry, Date.now());
    // Inside a turn the lock is held already, and no one else of this process appends (the writer runs it).
    const held = this.inTurn;
    if (!held) await this.takeLock();
    try {
      const head = this.syncTail();
      if (entry.seq <= head) return false;
      // A writer waiting its turn stands in the lock's line: one outside a turn lets it in first, and tries
      // again after it.
      if (!held && this.lock.othersWait()) {
        this.waiterSeen.now();
        return false;
      }
      if (entry.seq !== head + 1) {
        throw new StrataError('CORRUPT', `log entry ${entry.seq} cannot be appended to ${this.description}: the log ends at entry ${head}, and no writer may leave a gap`);
      }
      // Said before the record is written: a writer that finds the lock naming an entry past the tail it knows
      // reads the tail again, so it never writes over the sectors of an append that died part-way unseen.
      this.lock.announce(entry.seq, this.synced);
      const t = this.tail;
      // A segment of the old format is not appended to: the next record begins one of the current format.
      if (t === undefined || t.seg.first === 1 || t.seg.format === 1 || t.seg.end >= this.rollBytes) await this.roll(record, entry.seq);
      else await this.write(t, record, opts.overlap === true);
      return true;
    } catch (e) {
      // Reading the tail failed before anything was written (a read error, a vanished directory).
      throw e instanceof StrataError ? e : this.files.unavailable(`log entry ${entry.seq} was not written`, e);
    } finally {
      if (!held) this.lock.release();
    }
  }

  /** Under the lock an append has one answer: written, or the number was taken (see append). */
  appendOwn(entry: LogEntry, opts: AppendOptions = {}): Promise<boolean> {
    return this.append(entry, opts);
  }

  /**
   * Appends `record` to the tail; a write that fails is cut off again, so it never becomes an entry. The
   * sync is made on this thread unless other transactions wait to run (`overlap`): the trip through libuv's
   * pool costs 40–80 µs more per commit (p50 of the log append 471 µs against 388–431, durable one-file
   * commits), but a sync that holds the thread also holds every other caller's transaction, and group
   * commit then writes groups of one or two (8 callers: 964 commits/s, one by one: 866).
   */
  private async write(t: Tail, record: Buffer, overlap: boolean): Promise<void> {
    const { seg, fd } = t;
    // Where the record goes, and its number, taken now: while it is written and synced, a read of this
    // handle's (a refresh: the lock already names the entry) may scan it into the same segment.
    const at = seg.end;
    const seq = seg.first + entriesIn(seg);
    try {
      t.size = Math.max(writeAhead(fd, at, record.length, this.rollBytes, t.size), at + record.length);
      for (let done = 0; done < record.length; ) done += fs.writeSync(fd, record, done, record.length - done, at + done);
      if (this.sync && overlap) await fdatasync(fd);
      else if (this.sync) fs.fdatasyncSync(fd);
      if (this.sync) this.synced = seq;
    } catch (e) {
      try {
        fs.ftruncateSync(fd, at);
        t.size = at;
      } catch {
        // Left as a torn tail, which the next lock holder cuts off.
      }
      // A read that took the record in before it was cut reads the segment again.
      if (seg.end > at) this.files.reset(seg);
      throw this.files.unavailable(`log entry ${seq} was not written`, e);
    }
    if (seg.end > at) return; // a read took it in already
    seg.offsets.push(at);
    seg.end = at + record.length;
  }

  /**
   * Starts segment `seq` with `record`: written and synced under a temporary name, then linked into place,
   * so no segment exists without its first record (the one before it synced first: a relaxed crash may lose
   * a tail, never leave a gap).
   */
  private async roll(record: Buffer, seq: KvSeq): Promise<void> {
    const tmp = path.join(this.dir, `${TMP_PREFIX}${randomHex(8)}`);
    const name = segmentName(seq);
    let linked = false;
    try {
      if (this.tail !== undefined) {
        // What was written ahead of its records is not needed any more; a crash that keeps it leaves zeros.
        fs.ftruncateSync(this.tail.fd, this.tail.seg.end);
        await fdatasync(this.tail.fd);
      }
      const fd = fs.openSync(tmp, 'wx');
      try {
        writeAhead(fd, 0, record.length, this.rollBytes, 0);
        for (let done = 0; done < record.length; ) done += fs.writeSync(fd, record, done, record.length - done, done);
        await fdatasync(fd);
      } finally {
        fs.closeSync(fd);
      }
      // Before the link: a writer that finds the generation moved reads the directory again, so none can
      // append to the old tail once the new segment exists, even if this process dies right after linking.
      // After it too: a reader that listed the directory between the first move and the link looks again.
      this.lock.bump();
      fs.linkSync(tmp, path.join(this.dir, name));
      linked = true;
      this.lock.bump();
      // Written and synced whole under its temporary name, in relaxed mode too.
      this.synced = seq;
      if (this.sync) await syncDir(this.dir);
    } catch (e) {
      if (!linked) throw this.files.unavailable(`log entry ${seq} was not written (a new segment ${name} could not be made)`, e);
      throw new StrataError(
        'STORE_UNAVAILABLE',
        `log entry ${seq} was written to a new segment ${name} of ${this.description}, but its directory could not be synced ` +
          `(${(e as Error).message}), so the commit may or may not survive a crash; refresh() and look for it in snapshots() before running it again`,
        { cause: e },
      );
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    this.openTail();
  }

  /**
   * Under the lock: reads what other writers appended since this handle last looked, cuts off a torn tail,
   * and returns the newest entry's seq (0: none).
   */
  private syncTail(): KvSeq {
    const lock = this.lock.state();
    if (this.tail === undefined || this.tail.generation !== lock.generation) this.openTail();
    const t = this.tail;
    if (t === undefined) return kvSeq(0);
    // Every append is announced before it is written: while the lock names this handle's last entry, no
    // append has begun since it looked, and there is nothing to read but that the file still ends as it did
    // (one pread: an fstat of the file between two of its syncs made each sync ~40 µs slower here).
    const last = t.seg.first + entriesIn(t.seg) - 1;
    const known = entriesIn(t.seg) > 0 && !t.seg.torn && lock.head === last;
    if (known && this.files.endsAsRead(t.seg, t.fd)) return kvSeq(last);
    t.size = fs.fstatSync(t.fd).size;
    if (t.size < t.seg.end) this.files.reset(t.seg); // cut short behind our back: read it again from the start
    this.files.scan(t.seg, t.fd);
    if (t.seg.torn) this.cut(t);
    return kvSeq(t.seg.first + entriesIn(t.seg) - 1);
  }

  /** Cuts off what follows the tail's records: a torn record, and what a crash left past it. */
  private cut(t: Tail): void {
    fs.ftruncateSync(t.fd, t.seg.end);
    t.size = t.seg.end;
    // Synced in relaxed mode too: the space is written again next, and a crash that kept the new records
    // but not the cut could leave old sectors past them, which no open would take.
    fs.fdatasyncSync(t.fd);
    this.synced = t.seg.first + entriesIn(t.seg) - 1;
    // Stryker disable next-line BooleanLiteral: left set, it makes the next append scan again, which clears it
    t.seg.torn = false;
  }

  /** Opens the newest segment for appending (none: an empty log), clearing temporary files crashed writers left. */
  private openTail(): void {
    if (this.tail !== undefined) fs.closeSync(this.tail.fd);
    this.tail = undefined;
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the file was just listed, and only the lock holder removes temporary files
    for (const f of fs.readdirSync(this.dir)) if (f.startsWith(TMP_PREFIX)) fs.rmSync(path.join(this.dir, f), { force: true });
    this.files.list();
    const seg = this.files.segments.at(-1);
    if (seg === undefined) return;
    // The segments before the tail must hold every entry up to it: scanning them finds a gap now, not later.
    // Stryker disable next-line MethodExpression: the tail is scanned just below either way
    for (const s of this.files.segments.slice(0, -1)) this.files.locateEnd(s);
    const fd = fs.openSync(path.join(this.dir, seg.name), 'r+');
    const ino = fs.fstatSync(fd).ino;
    if (seg.ino !== ino) this.files.reset(seg);
    seg.ino = ino;
    this.files.scan(seg, fd);
    this.tail = { seg, fd, generation: this.lock.generation(), size: fs.fstatSync(fd).size };
    // Sectors of an append a crash cut short may lie past a sector of zeros, where scans stop.
    if (seg.torn || (seg.format === 2 && this.files.leftovers(seg, fd, this.tail.size))) this.cut(this.tail);
  }

  private async takeLock(): Promise<void> {
    try {
      await this.lock.take();
    } catch (e) {
      throw this.files.unavailable('the log lock could not be taken', e);
    }
  }

  async compact(through: KvSeq): Promise<void> {
    if ((await this.read(through)) === undefined) {
      throw new StrataError('INVALID_ARGUMENT', `log entry ${through} does not exist in ${this.description}, so the log cannot be compacted through it`);
    }
    const from = Math.max(2, (await this.compactedThrough()) + 1);
    if (through < from) return;
    await this.takeLock();
    try {
      this.syncTail();
      // Before any segment is replaced, as a roll does before it links: a writer holding the old file open
      // must look again even if this process dies between a rename and the bump after it.
      this.lock.bump();
      for (const seg of [...this.files.segments]) {
        const last = seg.first + this.files.locateEnd(seg) - 1;
        if (last >= from && seg.first <= through) await this.stubSegment(seg, from, through);
      }
      this.lock.bump();
      this.openTail();
    } finally {
      this.lock.release();
    }
    await markCompacted(this.store, through);
  }

  /** Replaces `seg` by the same records with those of entries from..through as stubs (their number and place in the chain). */
  private async stubSegment(seg: Segment, from: number, through: number): Promise<void> {
    // Every record is rewritten, so every offset is needed.
    if (seg.base > 0) this.files.readThrough(seg, this.files.fd(seg));
    const whole = fs.readFileSync(path.join(this.dir, seg.name));
    const parts: Buffer[] = [];
    for (const [i, offset] of seg.offsets.entries()) {
      const seq = kvSeq(seg.first + i);
      const raw = whole.subarray(offset, seg.offsets[i + 1] ?? seg.end);
      const where = `${this.files.where(seg, offset)} (log entry ${seq})`;
      const head = decodeHead(seg.format!, raw, 0);
      const body = head === undefined ? `its ${seg.format === 1 ? 'header' : 'first sector'} fails its checksum` : recordBody(seg.format!, raw, seq);
      if (typeof body === 'string') {
        throw new StrataError('CORRUPT', `${where} cannot be read: ${body}. The store's log is damaged: restore it from a backup (strata verify lists what else is damaged)`);
      }
      const entry = decodeEntry(where, body);
      const keep = seq < from || seq > through || entry.kind === 'stub';
      // Rewritten in the current format: a segment holds records of one.
      parts.push(seg.format === 2 && keep ? raw : encodeRecord(keep ? entry : { ...entry, kind: 'stub', epoch: 0, snapshots: [], mutations: [] }, head!.writtenAt));
    }
    const tmp = path.join(this.dir, `${TMP_PREFIX}${randomHex(8)}`);
    try {
      const fd = fs.openSync(tmp, 'wx');
      try {
        const body = Buffer.concat(parts);
        for (let done = 0; done < body.length; ) done += fs.writeSync(fd, body, done, body.length - done, done);
        await fdatasync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, path.join(this.dir, seg.name));
      if (this.sync) await syncDir(this.dir);
    } catch (e) {
      throw this.files.unavailable(`segment ${seg.name} could not be compacted`, e);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    this.files.reset(seg);
  }

  compactedThrough(): Promise<KvSeq> {
    return compactedThrough(this.store);
  }

  close(): void {
    this.files.close();
    if (this.tail !== undefined) fs.closeSync(this.tail.fd);
    this.tail = undefined;
    this.lock.close();
  }
}

/** The writer's handle on the tail segment: the lock generation it was opened at, and the file's size as last seen. */
interface Tail {
  seg: Segment;
  fd: number;
  generation: number;
  size: number;
}

/**
 * Writes zeros ahead of a record of `bytes` about to go at `end` of `fd` (of `size` bytes), unless the file
 * has room already: as far as the segment will grow before it rolls, at most AHEAD_BYTES. Returns the
 * file's size after.
 */
function writeAhead(fd: number, end: number, bytes: number, rollBytes: number, size: number): number {
  const to = Math.min(end + AHEAD_BYTES, rollBytes);
  if (end + bytes <= size || to <= end + bytes) return size;
  // Never below the records' end: `size` is what this writer last knew of the file, and another writer's
  // records may lie past it (this one caught up through reads since, which do not look at the size).
  const from = Math.max(size, end);
  try {
    for (let at = from; at < to; ) at += fs.writeSync(fd, AHEAD, 0, to - at, at);
    return to;
  } catch {
    // No room ahead (a full disk): the record grows the file instead, as far as it has room for the record.
    fs.ftruncateSync(fd, from);
    return from;
  }
}

async function syncDir(dir: string): Promise<void> {
  const fd = fs.openSync(dir, 'r');
  try {
    await new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => (e ? reject(e) : resolve())));
  } finally {
    fs.closeSync(fd);
  }
}
