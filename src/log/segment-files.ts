// The reading side of the segmented log (segment-log.ts), which needs no lock: the segments of one
// directory as far as this handle has read them, with the offset of every record read, so a read is a
// binary search and one pread. The tail is read as far as it is written: a record still being appended (or
// torn by a crash) is where the log ends for now, and a segment replaced by compaction is read again.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import { decodeEntry, type LogEntry } from './log-entry.js';
import {
  decodeHead,
  entriesIn,
  formatOf,
  headBytes,
  readSector,
  type RecordHead,
  recordBody,
  SECTOR_BYTES,
  type Segment,
  type SegmentFormat,
  SEGMENTS_DIR,
  segmentFirst,
} from './segment-file.js';
import type { LockState } from './segment-lock.js';

/** Where a record is: its segment, a descriptor on it, its head and its offset. */
type RecordAt = { seg: Segment; fd: number; head: RecordHead; offset: number };

/** Bytes read at once while scanning a segment's headers. */
const SCAN_BYTES = 1 << 20;
/**
 * Bytes first read past the end of a format-2 segment's records: its space is written ahead of them, so
 * the file's size does not say where they end, and a look for new records usually finds zeros at once.
 */
const FIRST_LOOK_BYTES = 4096;
/** File descriptors a handle keeps open for reading. */
const OPEN_SEGMENTS = 8;

/**
 * How long a reader waits for a writer holding the append lock before what it found damaged is reported: an
 * append holds it for a pwrite and a sync (a turn for a catch-up and a plan as well), a compaction longer.
 */
const IN_FLIGHT_MS = 2_000;

export class SegmentFiles {
  /** Known segments, ascending by first seq. */
  segments: Segment[] = [];
  /** Open descriptors, each with the lock generation at which its inode was last found to be the name's. */
  private readonly fds = new Map<string, { fd: number; ino: number; checkedAt: number | undefined }>();
  /** The lock generation read just before the directory was last listed. */
  private listedAt: number | undefined;

  constructor(
    readonly dir: string,
    readonly description: string,
    /**
     * The append lock's state, read without the lock (undefined: no lock file yet). Its generation moves
     * whenever a segment is created or replaced, so while it stands still, neither the listing nor an inode
     * checked since needs looking at again: reading to the end costs a pread, not a readdir and a stat.
     */
    private readonly lockState: () => LockState | undefined,
    /** Whether a writer holds the append lock now, in another process or through another handle. */
    private readonly appendUnderWay: () => boolean,
  ) {}

  /**
   * `look` again while what it found damaged may be an append under way: a reader does not take the lock,
   * and a record read while its writer's pwrite copies it in is part old, part new. Damage is reported once
   * a look failed with no writer holding the lock and nothing announced or let go while it looked (a holder
   * writes `released` before it lets go, so the lock is asked first and the state read after); or when
   * IN_FLIGHT_MS pass without such a look. A writer of a version before `released` existed leaves the look
   * itself as the window.
   */
  private async settled<T>(look: () => T): Promise<T> {
    // Taken at the first failure only: a read that finds nothing wrong loads nothing more (decision 0055).
    let since: number | undefined;
    for (;;) {
      const before = this.lockState();
      try {
        return look();
      } catch (e) {
        if (!(e instanceof StrataError) || e.code !== 'CORRUPT') throw e;
        const held = this.appendUnderWay();
        const after = this.lockState();
        const quiet = after === undefined || (before !== undefined && before.head === after.head && before.released === after.released);
        since ??= Date.now();
        if ((quiet && !held) || Date.now() - since > IN_FLIGHT_MS) throw e;
        await sleep(held ? 1 : 0);
      }
    }
  }

  private generation(): number | undefined {
    return this.lockState()?.generation;
  }

  /** Whether the segments may have changed since the directory was listed (by the lock's state `lock`). */
  private moved(lock = this.lockState()): boolean {
    return lock === undefined || lock.generation !== this.listedAt;
  }

  read(seq: KvSeq): Promise<LogEntry | undefined> {
    return this.settled(() => this.readNow(seq));
  }

  private readNow(seq: KvSeq): LogEntry | undefined {
    const at = this.locate(seq);
    if (at === undefined) return undefined;
    const { seg, fd, head, offset } = at;
    const record = Buffer.allocUnsafe(head.bytes);
    if (fs.readSync(fd, record, 0, head.bytes, offset) !== head.bytes) throw this.corrupt(seq, seg, offset, 'the entry is cut short');
    const body = recordBody(seg.format!, record, seq);
    if (typeof body === 'string') throw this.corrupt(seq, seg, offset, body);
    const entry = decodeEntry(`${this.where(seg, offset)} (log entry ${seq})`, body);
    if (entry.seq !== seq) throw this.corrupt(seq, seg, offset, `the record's entry names entry ${entry.seq}`);
    return entry;
  }

  writtenAt(seq: KvSeq): Promise<number | undefined> {
    return this.settled(() => this.locate(seq)?.head.writtenAt);
  }

  async *readAfter(seq: KvSeq): AsyncGenerator<LogEntry> {
    for (let next = kvSeq(seq + 1); ; next = kvSeq(next + 1)) {
      const entry = await this.read(next);
      if (entry === undefined) return;
      yield entry;
    }
  }

  /** The newest entry, every segment boundary from the one holding `from` checked on the way. */
  head(from: KvSeq): Promise<KvSeq> {
    return this.settled(() => this.headNow(from));
  }

  private headNow(from: KvSeq): KvSeq {
    // Nothing new: no segment made or replaced since the listing, and the newest entry announced is `from`.
    const lock = this.lockState();
    if (lock !== undefined && lock.head === from && from > 0 && lock.generation === this.listedAt && this.segments.length > 0) return from;
    if (this.segments.length === 0 || this.moved(lock)) this.list();
    for (let i = Math.max(0, this.segmentOf(from)); ; i++) {
      const seg = this.segments[i];
      if (seg === undefined) return kvSeq(0);
      const count = this.locateEnd(seg);
      if (i === this.segments.length - 1) return kvSeq(seg.first + count - 1);
    }
  }

  /** Reads `seg` to its end as it is now (the tail's end as far as written) and returns its entry count. */
  locateEnd(seg: Segment): number {
    const fd = this.fd(seg);
    this.scan(seg, fd);
    if (seg === this.segments.at(-1) && this.moved()) this.list(); // a newer segment may have appeared
    const next = this.segments[this.segments.indexOf(seg) + 1];
    if (next !== undefined) this.checkNext(seg, next);
    return entriesIn(seg);
  }

  /**
   * The record of entry `seq`: undefined when the log ends before it. A segment boundary that skips numbers,
   * or a torn record with a segment after it, is CORRUPT naming the first entry missing.
   */
  locate(seq: KvSeq): RecordAt | undefined {
    if (seq < 1) return undefined;
    if (this.segments.length === 0) this.list();
    for (let tries = 0; ; tries++) {
      const i = this.segmentOf(seq);
      if (i < 0) {
        if (this.segments.length > 0) throw this.missing(kvSeq(1), this.segments[0]!);
        return undefined;
      }
      const seg = this.segments[i]!;
      const fd = this.fd(seg);
      const index = seq - seg.first;
      // Read on from where this handle stopped; read again after a change under its offsets: through, from the start.
      if (index >= entriesIn(seg)) this.scan(seg, fd, tries > 0);
      // Before the entry this handle entered the segment at: it is read through, once (whoever asks for one
      // entry there usually reads on: a verify, an index catching up).
      if (index < seg.base) this.readThrough(seg, fd);
      if (index < entriesIn(seg)) {
        const offset = seg.offsets[index - seg.base]!;
        const b = Buffer.allocUnsafe(headBytes(seg.format!));
        const head = fs.readSync(fd, b, 0, b.length, offset) === b.length ? decodeHead(seg.format!, b, 0) : undefined;
        if (head?.seq === seq) return { seg, fd, head, offset };
        // The segment changed under its offsets (replaced by compaction, or damaged): read it once more.
        if (tries > 0) throw this.corrupt(seq, seg, offset, head === undefined ? 'its header fails its checksum' : `the record there names entry ${head.seq}`);
        this.reset(seg);
        continue;
      }
      const next = this.segments[i + 1];
      if (next === undefined) {
        if (tries > 0 || !this.moved()) return undefined;
        this.list(); // the end as far as this handle knew: a newer segment may have begun
        continue;
      }
      this.checkNext(seg, next);
      return undefined; // unreachable: checkNext throws when `seq` falls between two segments
    }
  }

  /**
   * The whole record of entry `seq` in format-2 `seg`, found by a binary search over the sectors' stamps, or
   * undefined where the search cannot vouch for it (a scan then says what is there). `seq` must be an entry
   * through which the segment is known to be on disk (LockState.synced, or the last of a segment another
   * follows): up to it, sound stamps name entries in ascending order, with no gap (a crash in relaxed mode
   * can leave gaps only past what was synced); past the records lie only zeros and sectors of later entries.
   * So the last sector whose stamp names `seq` or less ends `seq`'s record. The record is checked whole.
   */
  private seek(seg: Segment, fd: number, seq: KvSeq): RecordAt | undefined {
    if (this.formatIn(seg, fd) !== 2) return undefined;
    const b = Buffer.allocUnsafe(SECTOR_BYTES);
    const stamp = (sector: number) => (fs.readSync(fd, b, 0, SECTOR_BYTES, sector * SECTOR_BYTES) === SECTOR_BYTES ? readSector(b, 0) : 'short');
    // Invariant: the stamp of sector `lo` names `seq` or less (or lo is before the file); `hi`'s does not (or hi is past it).
    let lo = -1;
    let hi = Math.floor(fs.fstatSync(fd).size / SECTOR_BYTES);
    let last: { seq: number; index: number; count: number } | undefined;
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const s = stamp(mid);
      if (s === 'bad' || s === 'short') return undefined;
      if (s !== 'zeros' && s.seq <= seq) [lo, last] = [mid, s];
      else hi = mid;
    }
    // A sector out of its place (damage) can put the record's start before the file's.
    if (last?.seq !== seq || last.index !== last.count - 1 || lo < last.index) return undefined;
    const offset = (lo - last.index) * SECTOR_BYTES;
    const record = Buffer.allocUnsafe(last.count * SECTOR_BYTES);
    if (fs.readSync(fd, record, 0, record.length, offset) !== record.length || typeof recordBody(2, record, seq) === 'string') return undefined;
    const head = decodeHead(2, record, 0);
    return head?.seq === seq && head.bytes === record.length ? { seg, fd, head, offset } : undefined;
  }

  /**
   * Takes in the record `found` (by seek) as the last this handle has read of a segment it had read nothing
   * of: what follows is read on from its end, and the first ask for an entry before it reads the segment
   * through (locate).
   */
  private anchor(seg: Segment, found: RecordAt): void {
    seg.base = found.head.seq - seg.first;
    seg.offsets = [found.offset];
    seg.end = found.offset + found.head.bytes;
  }

  /** `seg`'s format, from its first word when not read yet. */
  private formatIn(seg: Segment, fd: number): SegmentFormat {
    if (seg.format === undefined) {
      const first = Buffer.alloc(4);
      fs.readSync(fd, first, 0, 4, 0);
      seg.format = formatOf(first);
    }
    return seg.format;
  }

  /**
   * Reads `seg` from its start again, for whoever needs the offset of every entry in it. Finding fewer entries
   * than this handle held (a gap or damage before the entry a search entered at) is CORRUPT: nothing may take
   * the shorter segment for the log.
   */
  readThrough(seg: Segment, fd: number): void {
    const held = entriesIn(seg);
    this.reset(seg);
    this.scan(seg, fd, true);
    if (entriesIn(seg) < held) throw this.corrupt(kvSeq(seg.first + entriesIn(seg)), seg, seg.end, 'read from its start, its segment ends before entries read from the entry a search found');
  }

  /** `next` must begin right after `seg`'s last entry, and `seg` must not end in a torn record. */
  checkNext(seg: Segment, next: Segment): void {
    this.scan(seg, this.fd(seg));
    const after = kvSeq(seg.first + entriesIn(seg));
    if (seg.torn) throw this.corrupt(after, seg, seg.end, `the record is cut short although segment ${next.name} follows`);
    if (next.first !== after) throw this.missing(after, next);
  }

  /** Index of the segment that would hold `seq` (the last with first <= seq), or -1. */
  segmentOf(seq: KvSeq): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.segments[mid]!.first <= seq) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** Reads the segment directory, keeping what is known of segments still there. */
  list(): void {
    this.listedAt = this.generation();
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      // Stryker disable next-line ArrayDeclaration: a name that is no segment's is passed over like none
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') names = [];
      else throw this.unavailable('the segment directory could not be listed', e);
    }
    const known = new Map(this.segments.map((s) => [s.name, s]));
    const segs: Segment[] = [];
    for (const name of names) {
      const first = segmentFirst(name);
      if (first === undefined) continue;
      // Stryker disable next-line ArrayDeclaration,BooleanLiteral: fd() resets a segment whose inode it has not seen, before anything reads these
      segs.push(known.get(name) ?? { first: kvSeq(first), name, ino: undefined, format: undefined, base: 0, offsets: [], end: 0, torn: false });
    }
    this.segments = segs.sort((a, b) => a.first - b.first);
  }

  /**
   * An open descriptor on `seg`'s file as its name now has it (a few kept open): a file replaced since
   * (compaction) is opened anew, and offsets read from the old one are read again.
   */
  fd(seg: Segment): number {
    const open = this.fds.get(seg.name);
    const at = this.generation();
    // One read of the generation serves both the check and the record of when the inode was checked.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: the shortcut saves a stat; a segment is replaced only under the lock, which moves the generation
    if (open !== undefined && at !== undefined && at === open.checkedAt) {
      this.fds.delete(seg.name);
      this.fds.set(seg.name, open);
      return open.fd;
    }
    const file = path.join(this.dir, seg.name);
    let ino: number;
    try {
      ino = fs.statSync(file).ino;
    } catch (e) {
      throw new StrataError('CORRUPT', `segment ${seg.name} of ${this.description} cannot be opened (${(e as Error).message}); the log is damaged (strata verify lists what else is)`);
    }
    this.fds.delete(seg.name);
    let fd: number;
    if (open !== undefined && open.ino === ino) fd = open.fd;
    else {
      if (open !== undefined) fs.closeSync(open.fd);
      fd = fs.openSync(file, 'r');
      ino = fs.fstatSync(fd).ino;
    }
    this.fds.set(seg.name, { fd, ino, checkedAt: at });
    if (seg.ino !== ino) this.reset(seg);
    seg.ino = ino;
    for (const [name, old] of this.fds) {
      if (this.fds.size <= OPEN_SEGMENTS) break;
      fs.closeSync(old.fd);
      this.fds.delete(name);
    }
    return fd;
  }

  reset(seg: Segment): void {
    seg.format = undefined;
    seg.base = 0;
    seg.offsets = [];
    seg.end = 0;
    // Stryker disable next-line BooleanLiteral: whatever reads `torn` after a reset scans first, and the scan sets it
    seg.torn = false;
  }

  /**
   * Reads records from `seg.end` on: those complete so far, then a torn record or nothing. Of format 2, a
   * record is torn when one of its sectors is zeros (not written yet, or never: a crash); the records end at
   * a sector of zeros where the next would begin. A format-2 segment not read yet is read from the last entry
   * known to be on disk with every record before it (startNearEnd), unless `through`.
   */
  scan(seg: Segment, fd: number, through = false): void {
    seg.torn = false;
    if (this.formatIn(seg, fd) === 1) return this.scanHeaders(seg, fd);
    if (!through && seg.end === 0) this.startNearEnd(seg, fd);
    this.scanSectors(seg, fd);
  }

  /**
   * Takes in, without the records before it, the last entry of `seg` that is known to be on disk with every
   * record before it: the one before the next segment's first (a segment is synced whole before the next is
   * made), or in the tail the one the lock says is synced. A process's first append (or read of the head)
   * read every segment through, ~20 ms for each 8 MB before its code was optimised, and a segment rolls at
   * 64 MiB. The scan reads on from there, and stops at a gap a crash left past it as a scan from the start
   * would. An entry before it, when asked for, has the segment read through (locate). The record found is
   * checked whole, as a scan checks the last record it finds; the records before it are not read, so damage
   * there is found by whoever reads them, as in the object layout.
   */
  private startNearEnd(seg: Segment, fd: number): void {
    const next = this.segments[this.segments.indexOf(seg) + 1];
    const last = next === undefined ? this.lockState()?.synced : next.first - 1;
    // The lock file is read as it is: a word that is no entry's number (damaged) says nothing.
    if (last === undefined || !Number.isSafeInteger(last) || last <= seg.first) return;
    const found = this.seek(seg, fd, kvSeq(last));
    if (found !== undefined) this.anchor(seg, found);
  }

  private scanSectors(seg: Segment, fd: number): void {
    let buf = Buffer.allocUnsafe(0);
    let bufAt = seg.end;
    /** `bytes` from `pos` in `buf`, read when not there yet (past the file's end: fewer, read as zeros). */
    const cover = (pos: number, bytes: number) => {
      if (pos + bytes <= bufAt + buf.length) return;
      buf = Buffer.allocUnsafe(Math.max(bytes, buf.length === 0 ? FIRST_LOOK_BYTES : Math.min(SCAN_BYTES, buf.length * 4)));
      bufAt = pos;
      buf = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, pos));
    };
    /** The last record found, as read. */
    let last: Buffer | undefined;
    for (;;) {
      const pos = seg.end;
      const expected = seg.first + entriesIn(seg);
      cover(pos, SECTOR_BYTES);
      const first = readSector(buf, pos - bufAt);
      if (first === 'zeros') break;
      if (first === 'short') {
        seg.torn = true;
        break;
      }
      if (first === 'bad') throw this.corrupt(kvSeq(expected), seg, pos, 'its first sector fails its checksum');
      if (first.seq !== expected) {
        throw first.seq > expected ? this.missing(kvSeq(expected), seg, pos) : this.corrupt(kvSeq(expected), seg, pos, `the record there names entry ${first.seq}`);
      }
      if (first.index !== 0) throw this.corrupt(kvSeq(expected), seg, pos, `its first sector is sector ${first.index} of ${first.count}`);
      const bytes = first.count * SECTOR_BYTES;
      cover(pos, bytes);
      // Whether each later sector was written, by its first word: a written one begins with the magic, which
      // no flipped bit makes zero. Whether it is sound is for the read of the entry to say (every sector's
      // CRC), and for this scan of the last record it finds, below: a scan reads every record of a segment.
      for (let i = 1; i < first.count && !seg.torn; i++) {
        const at = pos - bufAt + i * SECTOR_BYTES;
        if (buf.length - at >= SECTOR_BYTES && buf.readUInt32BE(at) !== 0) continue;
        const s = readSector(buf, at);
        if (s === 'zeros' || s === 'short') seg.torn = true;
        else throw this.corrupt(kvSeq(expected), seg, pos, `its sector ${i} fails its checksum`);
      }
      if (seg.torn) break;
      last = buf.subarray(pos - bufAt, pos - bufAt + bytes);
      seg.offsets.push(pos);
      seg.end = pos + bytes;
    }
    // The last record found is checked whole: a writer appends after it, and must not after a damaged one.
    if (last !== undefined) {
      const seq = seg.first + entriesIn(seg) - 1;
      const body = recordBody(2, last, seq);
      if (typeof body === 'string') {
        // Not taken in: a look again (the record may have been read as it was written) starts at it.
        const offset = seg.offsets.pop()!;
        seg.end = offset;
        throw this.corrupt(kvSeq(seq), seg, offset, body);
      }
    }
  }

  /**
   * Whether `seg`'s file still ends its last record read as it did, by one pread of its last bytes: a file
   * cut short behind this handle's back (or replaced) does not, and is read again.
   */
  endsAsRead(seg: Segment, fd: number): boolean {
    const b = Buffer.allocUnsafe(SECTOR_BYTES);
    if (seg.format === 1) return fs.readSync(fd, b, 0, 1, seg.end - 1) === 1;
    if (fs.readSync(fd, b, 0, SECTOR_BYTES, seg.end - SECTOR_BYTES) !== SECTOR_BYTES) return false;
    const s = readSector(b, 0);
    return typeof s !== 'string' && s.seq === seg.first + entriesIn(seg) - 1 && s.index === s.count - 1;
  }

  /**
   * For the writer that opens the tail: what lies past the records of format-2 `seg` (scanned) must be
   * zeros, or sectors of entries after them — what a crash left of appends whose sectors did not all land,
   * the first perhaps not at all. Returns whether there are any such sectors: they are to be cut. A sector
   * that is neither, or names an entry before, is CORRUPT. `size`: the file's.
   */
  leftovers(seg: Segment, fd: number, size: number): boolean {
    const next = seg.first + entriesIn(seg);
    let found = false;
    const b = Buffer.allocUnsafe(SCAN_BYTES);
    for (let at = seg.end; at < size; at += b.length) {
      const read = b.subarray(0, fs.readSync(fd, b, 0, Math.min(b.length, size - at), at));
      for (let i = 0; i < read.length; i += SECTOR_BYTES) {
        const s = readSector(read, i);
        if (s === 'zeros') continue;
        if (s === 'short') {
          found = true;
          continue;
        }
        if (s === 'bad' || s.seq < next) {
          throw this.corrupt(kvSeq(next), seg, at + i, `past the last record, a sector ${s === 'bad' ? 'fails its checksum' : `names entry ${s.seq}`}`);
        }
        found = true;
      }
    }
    return found;
  }

  /** Format 1: reads headers from `seg.end` to the end of the file: records complete so far, then a torn tail or nothing. */
  private scanHeaders(seg: Segment, fd: number): void {
    const size = fs.fstatSync(fd).size;
    let buf = Buffer.allocUnsafe(0);
    let bufAt = 0;
    while (seg.end < size) {
      const pos = seg.end;
      if (pos + headBytes(1) > bufAt + buf.length) {
        // Stryker disable next-line MethodExpression,ArithmeticOperator: a read past the end returns what is there; the buffer's size sets only how often the scan reads
        const n = Math.min(SCAN_BYTES, size - pos);
        buf = Buffer.allocUnsafe(n);
        bufAt = pos;
        buf = buf.subarray(0, fs.readSync(fd, buf, 0, n, pos));
        if (buf.length < headBytes(1)) {
          seg.torn = true; // a prefix of a header
          return;
        }
      }
      const expected = seg.first + entriesIn(seg);
      const head = decodeHead(1, buf, pos - bufAt);
      if (head === undefined) {
        if (this.zerosFrom(fd, pos, size)) {
          seg.torn = true;
          return;
        }
        throw this.corrupt(kvSeq(expected), seg, pos, 'its header fails its checksum');
      }
      if (head.seq !== expected) {
        throw head.seq > expected ? this.missing(kvSeq(expected), seg, pos) : this.corrupt(kvSeq(expected), seg, pos, `the record there names entry ${head.seq}`);
      }
      if (pos + head.bytes > size) {
        seg.torn = true; // the segment ends inside the entry
        return;
      }
      seg.offsets.push(pos);
      seg.end = pos + head.bytes;
    }
  }

  private zerosFrom(fd: number, from: number, size: number): boolean {
    // Stryker disable next-line MethodExpression,ArithmeticOperator: as in scan, the buffer's size sets only how often this reads
    const b = Buffer.allocUnsafe(Math.min(SCAN_BYTES, size - from));
    for (let at = from; at < size; at += b.length) {
      // Stryker disable next-line ArithmeticOperator: asking for more than is left to the end reads what is left
      const n = fs.readSync(fd, b, 0, Math.min(b.length, size - at), at);
      if (!b.subarray(0, n).every((x) => x === 0)) return false;
    }
    return true;
  }

  where(seg: Segment, offset: number): string {
    return `segment ${SEGMENTS_DIR}/${seg.name} at byte ${offset}`;
  }

  corrupt(seq: KvSeq, seg: Segment, offset: number, why: string): StrataError {
    return new StrataError(
      'CORRUPT',
      `log entry ${seq} (${this.where(seg, offset)} in ${this.description}) cannot be read: ${why}. The log is damaged: ` +
        'restore the segment from a backup (strata verify lists what else is damaged)',
    );
  }

  missing(seq: KvSeq, seg: Segment, offset?: number): StrataError {
    return new StrataError(
      'CORRUPT',
      `log entry ${seq} is missing from ${this.description} although later entries exist (${offset === undefined ? `segment ${seg.name} begins after it` : `${this.where(seg, offset)} holds a later one`}): ` +
        'the log has a gap, so nothing after it can be trusted and no writer may fill it; restore the missing segment from a backup (strata verify lists what else is damaged)',
    );
  }

  unavailable(what: string, e: unknown): StrataError {
    return new StrataError('STORE_UNAVAILABLE', `${what} in ${this.description}: ${(e as Error).message}`, { cause: e });
  }

  close(): void {
    for (const { fd } of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }
}
