// How the segmented log recovers what a crash or another process left, past segment-log.test.ts's torn tails:
// what the next writer cuts off before it appends (a torn entry or zeros longer than the record it writes),
// a file cut short behind a writer's back, a segment longer than one read of the scan, a record in the
// wrong place (a gap, or damage) and the temporary files a crashed roll or compaction left.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { encodeRecord, SECTOR_BYTES, SEGMENTS_DIR, segmentFirst, segmentName } from '../../src/log/segment-file.js';
import { SegmentLog, type SegmentLogOptions } from '../../src/log/segment-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';
import { entry, span, splice } from '../support/segments.js';

const open = (root: string, opts?: SegmentLogOptions) => new SegmentLog(new DirectoryStore(root), root, opts);

async function logOf(root: string, sizes: number[], opts?: SegmentLogOptions): Promise<SegmentLog> {
  const log = open(root, opts);
  for (const [i, bytes] of sizes.entries()) expect(await log.append(entry(i + 1, bytes))).toBe(true);
  return log;
}

/** Whether the file holds only zeros from `offset` on. */
const zerosFrom = (file: string, offset: number) => fs.readFileSync(file).subarray(offset).every((b) => b === 0);

/** Writes `bytes` right after the record `s`, over the zeros written ahead. */
function overwriteAfter(s: { file: string; offset: number; length: number }, bytes: Buffer): void {
  const fd = fs.openSync(s.file, 'r+');
  fs.writeSync(fd, bytes, 0, bytes.length, s.offset + s.length);
  fs.closeSync(fd);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const damaged = (e: unknown, pattern: RegExp) => {
  expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
  expect((e as Error).message).toMatch(pattern);
};

describe('segment recovery', () => {
  it('the next writer cuts off a torn entry before it appends, though its record is shorter than what was torn', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40, 3000])).close();
    const torn = span(root, 3);
    const whole = fs.readFileSync(torn.file);
    fs.writeFileSync(torn.file, whole.subarray(0, torn.offset + torn.length - 10));
    const writer = open(root);
    const e3 = entry(3, 10);
    expect(await writer.append(e3)).toBe(true);
    expect(zerosFrom(torn.file, torn.offset + span(root, 3).length)).toBe(true);
    expect((await open(root).read(kvSeq(3)))!.txn).toBe(e3.txn);
    expect(await open(root).head(kvSeq(0))).toBe(3);
  });

  it('the next writer cuts off the sectors of an append whose first sector never landed, and its record is followed by zeros', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    const last = span(root, 2);
    const end = last.offset + last.length;
    const lost = encodeRecord(entry(3, 1500), Date.now()); // four sectors: the first stays zeros
    const b = fs.readFileSync(last.file);
    lost.copy(b, end + SECTOR_BYTES, SECTOR_BYTES);
    fs.writeFileSync(last.file, b);
    expect(await open(root).head(kvSeq(0))).toBe(2);
    const e3 = entry(3, 10);
    expect(await open(root).append(e3)).toBe(true);
    expect(zerosFrom(last.file, span(root, 3).offset + span(root, 3).length)).toBe(true);
    expect((await open(root).read(kvSeq(3)))!.txn).toBe(e3.txn);
    expect(await open(root).head(kvSeq(0))).toBe(3);
  });

  it('a writer whose tail another process began to append to and died reads it before appending, and leaves nothing of it', async () => {
    const root = await tempDir();
    const writer = await logOf(root, [40, 40, 40]);
    const last = span(root, 3);
    // Another process announced entry 4 in the lock file, as every append does before its record, and died
    // with the first three of its record's four sectors written: more than this writer's next two records cover.
    const lock = fs.openSync(path.join(root, SEGMENTS_DIR, 'LOCK'), 'r+');
    const head = Buffer.alloc(8);
    head.writeDoubleBE(4);
    fs.writeSync(lock, head, 0, 8, 8);
    fs.closeSync(lock);
    const fd = fs.openSync(last.file, 'r+');
    fs.writeSync(fd, encodeRecord(entry(4, 1500), Date.now()), 0, 3 * SECTOR_BYTES, last.offset + last.length);
    fs.closeSync(fd);
    const e4 = entry(4, 10);
    expect(await writer.append(e4)).toBe(true);
    expect(await writer.append(entry(5, 10))).toBe(true);
    const fifth = span(root, 5);
    expect(zerosFrom(last.file, fifth.offset + fifth.length)).toBe(true);
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(5);
    expect((await reader.read(kvSeq(4)))!.txn).toBe(e4.txn);
    reader.close();
  });

  it('a read of the writer\'s own handle while its append is synced takes the record in once: the next append lands after it', async () => {
    const root = await tempDir();
    const a = await logOf(root, [40, 40, 40]);
    expect(await a.head(kvSeq(3))).toBe(3);
    const appending = a.append(entry(4, 3000), { overlap: true }); // the sync goes through libuv's pool
    await new Promise((r) => setImmediate(r));
    const during = a.head(kvSeq(3)); // a refresh while the record is written and being synced
    expect(await appending).toBe(true);
    expect(await during).toBeGreaterThanOrEqual(3);
    expect(await a.head(kvSeq(0))).toBe(4);
    const b = open(root);
    expect(await b.append(entry(5))).toBe(true);
    expect(await a.append(entry(5))).toBe(false);
    const e6 = entry(6);
    expect(await a.append(e6)).toBe(true);
    const c = open(root);
    expect(await c.head(kvSeq(0))).toBe(6);
    expect((await c.read(kvSeq(6)))!.txn).toBe(e6.txn);
    for (const h of [a, b, c]) h.close();
  });

  it('a crash after any subset of an append\'s sectors, written in any order, leaves a log that opens: the entry whole, or cut', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    const last = span(root, 2);
    const end = last.offset + last.length;
    const before = fs.readFileSync(last.file);
    const lost = entry(3, 1500);
    const record = encodeRecord(lost, Date.now());
    const sectors = record.length / SECTOR_BYTES;
    expect(sectors).toBe(4);
    for (let landed = 0; landed < 1 << sectors; landed++) {
      const b = Buffer.from(before);
      for (let i = 0; i < sectors; i++) if (landed & (1 << i)) record.copy(b, end + i * SECTOR_BYTES, i * SECTOR_BYTES, (i + 1) * SECTOR_BYTES);
      fs.writeFileSync(last.file, b);
      const whole = landed === (1 << sectors) - 1;
      const first = open(root);
      expect(await first.head(kvSeq(0)), `sectors ${landed.toString(2)}`).toBe(whole ? 3 : 2);
      first.close();
      const writer = open(root);
      expect(await writer.append(entry(3, 10)), `sectors ${landed.toString(2)}`).toBe(!whole);
      expect(await writer.append(entry(4, 10))).toBe(true);
      writer.close();
      const reader = open(root);
      expect(await reader.head(kvSeq(0))).toBe(4);
      if (whole) expect((await reader.read(kvSeq(3)))!.txn).toBe(lost.txn);
      reader.close();
      const after = span(root, 4);
      expect(zerosFrom(last.file, after.offset + after.length), `sectors ${landed.toString(2)}`).toBe(true);
    }
  });

  // ~6,000 flips, each opened, appended to and read by two processes' worth of handles: 15 s alone, twice
  // that beside the rest of the suite on two cores.
  it('no single flipped bit in any acknowledged record reads as a torn append: each is CORRUPT to whoever reads its entry, and no writer cuts or writes over it', { timeout: 120_000 }, async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40, 700])).close(); // the last record takes two sectors
    const file = span(root, 2).file;
    const lockFile = path.join(root, SEGMENTS_DIR, 'LOCK');
    const [size, lock] = [fs.statSync(file).size, fs.readFileSync(lockFile)];
    const end = span(root, 3).offset + span(root, 3).length;
    const fd = fs.openSync(file, 'r+');
    const flip = (at: number, mask: number) => {
      const b = Buffer.alloc(1);
      fs.readSync(fd, b, 0, 1, at);
      b[0]! ^= mask;
      fs.writeSync(fd, b, 0, 1, at);
    };
    for (const seq of [2, 3]) {
      const s = span(root, seq);
      for (let bit = 0; bit < s.length * 8; bit++) {
        flip(s.offset + (bit >> 3), 1 << (bit & 7));
        const damaged = fs.readFileSync(file).subarray(0, end);
        const writer = open(root);
        const appended = await writer.append(entry(4)).catch((e: unknown) => e);
        const read = await writer.read(kvSeq(seq)).catch((e: unknown) => e);
        const reader = open(root);
        const fresh = await reader.read(kvSeq(seq)).catch((e: unknown) => e);
        reader.close();
        writer.close();
        const why = `entry ${seq}, bit ${bit}: ${String(appended)}`;
        // Whoever reads the entry is told it is damaged, the writer too.
        expect(isStrataError(read, 'CORRUPT') && isStrataError(fresh, 'CORRUPT'), `${why}; ${String(read)}; ${String(fresh)}`).toBe(true);
        const refused = isStrataError(appended, 'CORRUPT') && (appended as Error).message.includes(`log entry ${seq} `);
        // The last record is what a writer appends after: it reads it whole first, and stops. A record before
        // it an append need not read (nor does a writer of the object layout): it stops if its search for the
        // last one met the damage, and otherwise lands after the last.
        expect(seq === 3 ? refused : refused || appended === true, why).toBe(true);
        // Nothing of the records was cut or written over, whatever the append did.
        expect(fs.readFileSync(file).subarray(0, end).equals(damaged), why).toBe(true);
        // As it was before the append: entry 4 gone, the lock naming entry 3.
        fs.ftruncateSync(fd, end);
        fs.ftruncateSync(fd, size);
        fs.writeFileSync(lockFile, lock);
        flip(s.offset + (bit >> 3), 1 << (bit & 7));
      }
    }
    fs.closeSync(fd);
    expect(await open(root).head(kvSeq(0))).toBe(3);
  });

  it('a writer whose segment was cut short behind its back reads it again and appends where the entries end', async () => {
    const root = await tempDir();
    const writer = await logOf(root, [40, 40, 40, 40]);
    const fourth = span(root, 4);
    fs.truncateSync(fourth.file, fourth.offset);
    const e4 = entry(4);
    expect(await writer.append(e4)).toBe(true);
    expect((await open(root).read(kvSeq(4)))!.txn).toBe(e4.txn);
    expect(await open(root).head(kvSeq(0))).toBe(4);
  });

  it('a segment longer than one read of the scan: headers that straddle the read are read whole', async () => {
    const root = await tempDir();
    // 13 entries of ~100 KB in one segment (entry 1 is alone in the first): past the 1 MiB a scan reads at once.
    (await logOf(root, Array.from({ length: 14 }, () => 100_003))).close();
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(14);
    expect((await reader.read(kvSeq(14)))!.seq).toBe(14);
    const writer = open(root);
    expect(await writer.append(entry(15))).toBe(true);
  });

  it('a record of a later entry where an entry belongs is a gap; of an earlier one, damage; each names what it found', async () => {
    for (const [from, pattern] of [
      [3, /log entry 2 is missing from .* holds a later one\): the log has a gap/],
      [1, /log entry 2 \(segment .* at byte \d+ in .*\) cannot be read: the record there names entry 1\. The log is damaged/],
    ] as const) {
      const root = await tempDir();
      (await logOf(root, [40, 40, 40])).close();
      const other = span(root, from);
      splice(span(root, 2), fs.readFileSync(other.file).subarray(other.offset, other.offset + other.length));
      // Found by whoever reads the entry, or reads the segment through (a writer appends after the last entry without).
      damaged(await open(root).read(kvSeq(2)).catch((e: unknown) => e), pattern);
    }
  });

  it('garbage where a header belongs is damage naming its checksum and what to do', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    overwriteAfter(span(root, 2), Buffer.alloc(40, 0x5a));
    damaged(
      await open(root).head(kvSeq(0)).catch((e: unknown) => e),
      /log entry 3 \(segment .* at byte \d+ in .*\) cannot be read: its first sector fails its checksum\. The log is damaged: restore the segment from a backup \(strata verify lists what else is damaged\)/,
    );
  });

  it('a torn record with a segment after it is no torn tail but damage, whether the header or the entry was cut', async () => {
    for (const keep of [10, SECTOR_BYTES + 5]) {
      const root = await tempDir();
      const log = await logOf(root, [40, 40, 700]);
      const third = span(root, 3);
      fs.truncateSync(third.file, third.offset + keep);
      log.close();
      // The segment after it, as if the roll that made it had not seen the torn record.
      const next = await tempDir();
      (await logOf(next, [40, 40, 40, 40], { rollBytes: 1 })).close();
      fs.copyFileSync(path.join(next, SEGMENTS_DIR, segmentName(4)), path.join(root, SEGMENTS_DIR, segmentName(4)));
      const message =
        `log entry 3 (segment ${SEGMENTS_DIR}/${segmentName(2)} at byte ${third.offset} in ${log.description}) cannot be read: ` +
        `the record is cut short although segment ${segmentName(4)} follows. The log is damaged: restore the segment from a backup (strata verify lists what else is damaged)`;
      damaged(await open(root).head(kvSeq(0)).catch((e: unknown) => e), new RegExp(`^${escape(message)}$`));
      damaged(await open(root).read(kvSeq(3)).catch((e: unknown) => e), new RegExp(`^${escape(message)}$`));
    }
  });

  it('garbage after the records a reader has read is damage, not a torn tail', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(2);
    overwriteAfter(span(root, 2), Buffer.alloc(24, 0x5a));
    damaged(await reader.read(kvSeq(3)).catch((e: unknown) => e), /^log entry 3 \(segment .* at byte \d+ in .*\) cannot be read: its first sector fails its checksum\./);
  });

  it('zeros past the space written ahead, longer than one read of the scan, are the end of the log too', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    fs.appendFileSync(span(root, 2).file, Buffer.alloc(3 << 20));
    expect(await open(root).head(kvSeq(0))).toBe(2);
    expect(await open(root).append(entry(3))).toBe(true);
    expect(await open(root).head(kvSeq(0))).toBe(3);
  });

  it('a file is a segment only under the one name its first entry gives it', () => {
    expect(segmentFirst(segmentName(7))).toBe(7);
    expect(segmentFirst(segmentName(2 ** 53 - 1))).toBe(2 ** 53 - 1);
    // Entry 0 has no segment; a number past the safe integers, a short name, a name that is no number: no segment.
    for (const name of [segmentName(0), segmentName(2 ** 53 + 2), '7.seg', `${'0'.repeat(19)}x.seg`, 'notes.txt', segmentName(7).slice(0, -1)]) {
      expect(segmentFirst(name), name).toBeUndefined();
    }
  });

  it('a writer removes the temporary files a crashed roll or compaction left', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    const left = path.join(root, SEGMENTS_DIR, 'tmp-0123456789abcdef');
    fs.writeFileSync(left, 'half a segment');
    expect(await open(root).append(entry(3))).toBe(true);
    expect(fs.existsSync(left)).toBe(false);
  });
});

describe('a segment writer that cannot reach its files', () => {
  it('one that cannot take the lock, or read the tail under it, says the store is unavailable and what was not written', async () => {
    const noDir = await tempDir();
    fs.writeFileSync(path.join(noDir, SEGMENTS_DIR), 'not a directory');
    const locked = open(noDir);
    const unavailable = async (p: Promise<unknown>) => {
      const e = await p.catch((x: unknown) => x);
      expect(isStrataError(e, 'STORE_UNAVAILABLE'), String(e)).toBe(true);
      return (e as Error).message;
    };
    expect(await unavailable(locked.append(entry(1)))).toBe(
      `the log lock could not be taken in ${locked.description}: ${path.join(noDir, SEGMENTS_DIR)} exists and is not a directory; give a directory, or a path where one can be made`,
    );
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    // A directory under the name of the newest segment: the tail cannot be opened for appending.
    fs.mkdirSync(path.join(root, SEGMENTS_DIR, segmentName(3)));
    const writer = open(root);
    expect(await unavailable(writer.append(entry(3)))).toMatch(new RegExp(`^log entry 3 was not written in ${writer.description}: EISDIR: illegal operation on a directory`));
  });
});

describe('segment compaction', () => {
  it('stubs only the entries it covers inside a segment that holds later ones too, and refuses an entry that is not there', async () => {
    const root = await tempDir();
    const log = await logOf(root, [40, 40, 40, 40, 40, 40]);
    await log.compact(kvSeq(3));
    const kinds = [];
    for (let s = 1; s <= 6; s++) kinds.push((await open(root).read(kvSeq(s)))!.kind);
    expect(kinds).toEqual(['commit', 'stub', 'stub', 'commit', 'commit', 'commit']);
    const out = await log.compact(kvSeq(9)).catch((e: unknown) => e);
    expect(isStrataError(out, 'INVALID_ARGUMENT'), String(out)).toBe(true);
    expect((out as Error).message).toMatch(/^log entry 9 does not exist in .*segmented log, so the log cannot be compacted through it$/);
  });
});

describe('a handle that enters a segment at its last entry', () => {
  it('after a machine crash that kept later pages of a relaxed tail but not earlier ones, sees the log end at the gap, as a scan from the start does', async () => {
    const root = await tempDir();
    const relaxed = (r: string) => open(r, { sync: false });
    const writer = relaxed(root);
    for (let s = 1; s <= 40; s++) expect(await writer.append(entry(s))).toBe(true);
    writer.close();
    // Entries 5..9 never reached the disk; 10..40 and the lock file (naming 40) did.
    for (let s = 5; s <= 9; s++) overwriteAfter({ ...span(root, s), length: 0 }, Buffer.alloc(span(root, s).length));
    for (const make of [open, relaxed]) {
      const fresh = make(root);
      expect(await fresh.head(kvSeq(0))).toBe(4);
      expect(await fresh.read(kvSeq(40))).toBeUndefined();
      fresh.close();
      const reader = make(root);
      expect(await reader.read(kvSeq(20))).toBeUndefined();
      reader.close();
    }
    // The next writer takes the log as ending at entry 4: entry 41 would leave a gap; entry 5 follows, and
    // what lay past the gap (crash debris of a relaxed tail) is cut.
    const next = open(root);
    expect(isStrataError(await next.append(entry(41)).catch((e: unknown) => e), 'CORRUPT')).toBe(true);
    const fifth = entry(5);
    expect(await next.append(fifth)).toBe(true);
    next.close();
    const after = open(root);
    expect(await after.head(kvSeq(0))).toBe(5);
    expect((await after.read(kvSeq(5)))!.txn).toBe(fifth.txn);
    expect(await after.read(kvSeq(40))).toBeUndefined();
    after.close();
  });

  it('a sound record where another entry belongs, or a sector out of its place, is damage to it, never the end of the log', async () => {
    // Segment 2's one record replaced by entry 1's; then by the second sector of entry 2's own two.
    for (const [sizes, put] of [
      [[40, 40], (root: string) => splice(span(root, 2), fs.readFileSync(span(root, 1).file).subarray(0, SECTOR_BYTES))],
      [[40, 700], (root: string) => {
        const s = span(root, 2);
        const second = fs.readFileSync(s.file).subarray(s.offset + SECTOR_BYTES, s.offset + 2 * SECTOR_BYTES);
        const fd = fs.openSync(s.file, 'r+');
        fs.writeSync(fd, second, 0, SECTOR_BYTES, s.offset);
        fs.closeSync(fd);
      }],
    ] as const) {
      const root = await tempDir();
      (await logOf(root, [...sizes])).close();
      put(root);
      for (const attempt of [(l: SegmentLog) => l.read(kvSeq(2)), (l: SegmentLog) => l.head(kvSeq(0)), (l: SegmentLog) => l.append(entry(3))]) {
        const l = open(root);
        const got = await attempt(l).catch((e: unknown) => e);
        l.close();
        expect(isStrataError(got, 'CORRUPT'), `${sizes}: ${String(got)}`).toBe(true);
      }
    }
  });
});
