// The reading side of the segmented log (segment-files.ts) when the files change under a handle that has
// read them: a record cut short or rewritten after it was found, a segment gone or never there, a directory
// that cannot be listed, a segment compaction replaced, segments restored from a backup (in any order, without
// their lock file), what a reader trusts of the lock file, and how many descriptors a reader keeps open however
// many segments it reads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { encodeRecord, SECTOR_BYTES, SEGMENTS_DIR, segmentName } from '../../src/log/segment-file.js';
import { SegmentLog, type SegmentLogOptions } from '../../src/log/segment-log.js';
import { AppendLock } from '../../src/log/segment-lock.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';
import { entry, restamp, span, splice } from '../support/segments.js';

const open = (root: string, opts?: SegmentLogOptions) => new SegmentLog(new DirectoryStore(root), root, opts);

async function logOf(root: string, sizes: number[], opts?: SegmentLogOptions): Promise<SegmentLog> {
  const log = open(root, opts);
  for (const [i, bytes] of sizes.entries()) expect(await log.append(entry(i + 1, bytes))).toBe(true);
  return log;
}

const refusal = async (p: Promise<unknown>, code: 'CORRUPT' | 'STORE_UNAVAILABLE') => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(isStrataError(e, code), String(e)).toBe(true);
  // The store's own error goes with it, for whoever looks further.
  if (code === 'STORE_UNAVAILABLE') expect((e as Error).cause).toBeInstanceOf(Error);
  return (e as Error).message;
};

const DAMAGED = 'The log is damaged: restore the segment from a backup (strata verify lists what else is damaged)';
const at = (seq: number, offset: number, log: SegmentLog) => `log entry ${seq} (segment ${SEGMENTS_DIR}/${segmentName(2)} at byte ${offset} in ${log.description})`;

/** The descriptors this process has open (Linux). */
const openFds = () => fs.readdirSync('/proc/self/fd').length;

describe('a segment reader whose files changed', () => {
  it('a record cut short after the reader found it is damage, not the end of the log', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40, 700])).close();
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(3);
    const third = span(root, 3);
    fs.truncateSync(third.file, third.offset + SECTOR_BYTES + 5);
    expect(await refusal(reader.read(kvSeq(3)), 'CORRUPT')).toBe(`${at(3, third.offset, reader)} cannot be read: the entry is cut short. ${DAMAGED}`);
  });

  it('a record whose header names its entry but whose frame holds another is damage naming both', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40, 40])).close();
    const record = restamp(encodeRecord(entry(3), Date.now()), 2);
    const second = span(root, 2);
    splice(second, record);
    const reader = open(root);
    expect(await refusal(reader.read(kvSeq(2)), 'CORRUPT')).toBe(`${at(2, second.offset, reader)} cannot be read: the record's entry names entry 3. ${DAMAGED}`);
  });

  it('a log whose first segment is gone has a gap at entry 1', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    fs.rmSync(path.join(root, SEGMENTS_DIR, segmentName(1)));
    const reader = open(root);
    expect(await refusal(reader.read(kvSeq(1)), 'CORRUPT')).toBe(
      `log entry 1 is missing from ${reader.description} although later entries exist (segment ${segmentName(2)} begins after it): ` +
        'the log has a gap, so nothing after it can be trusted and no writer may fill it; restore the missing segment from a backup (strata verify lists what else is damaged)',
    );
  });

  it('a segment removed after the reader listed it cannot be opened: damage naming the segment', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    const reader = open(root);
    expect((await reader.read(kvSeq(1)))!.seq).toBe(1);
    fs.rmSync(path.join(root, SEGMENTS_DIR, segmentName(2)));
    expect(await refusal(reader.read(kvSeq(2)), 'CORRUPT')).toMatch(
      new RegExp(`^segment ${segmentName(2)} of ${reader.description} cannot be opened \\(ENOENT: [^)]*\\); the log is damaged \\(strata verify lists what else is\\)$`),
    );
  });

  it('a segment directory that cannot be listed leaves the store unavailable, saying why; one not made yet is an empty log', async () => {
    const root = await tempDir();
    expect(await open(root).head(kvSeq(0))).toBe(0);
    expect(await open(root).read(kvSeq(1))).toBeUndefined();
    // Nor is there ever an entry 0, in a log with entries.
    (await logOf(root, [40])).close();
    expect(await open(root).read(kvSeq(0))).toBeUndefined();
    fs.rmSync(path.join(root, SEGMENTS_DIR), { recursive: true });
    fs.writeFileSync(path.join(root, SEGMENTS_DIR), 'not a directory');
    const reader = open(root);
    expect(await refusal(reader.head(kvSeq(0)), 'STORE_UNAVAILABLE')).toMatch(
      new RegExp(`^the segment directory could not be listed in ${reader.description}: ENOTDIR: not a directory, scandir '${path.join(root, SEGMENTS_DIR)}'$`),
    );
  });

  it('a segment that compaction replaced under a reader is read anew, with what was appended to it since', async () => {
    const root = await tempDir();
    const writer = await logOf(root, [40, 3000, 3000, 3000, 3000]);
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(5);
    await writer.compact(kvSeq(4));
    expect(await writer.append(entry(6))).toBe(true);
    expect(await reader.head(kvSeq(5))).toBe(6);
    expect((await reader.read(kvSeq(6)))!.seq).toBe(6);
    expect((await reader.read(kvSeq(4)))!.kind).toBe('stub');
  });
});

describe('segments restored from a backup', () => {
  /** The segments of a log of `n` entries, one a segment, copied into a new directory out of order, without the lock file. */
  async function restored(n: number): Promise<string> {
    const from = await tempDir();
    (await logOf(from, Array.from({ length: n }, () => 40), { rollBytes: 1 })).close();
    const root = await tempDir();
    fs.mkdirSync(path.join(root, SEGMENTS_DIR));
    const order = Array.from({ length: n }, (_, i) => i + 1).sort((a, b) => (a % 2) - (b % 2) || b - a);
    for (const s of order) fs.copyFileSync(path.join(from, SEGMENTS_DIR, segmentName(s)), path.join(root, SEGMENTS_DIR, segmentName(s)));
    return root;
  }

  it('are read in the order of their numbers, whatever order they were made in', async () => {
    const root = await restored(6);
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(6);
    for (let s = 1; s <= 6; s++) expect((await reader.read(kvSeq(s)))!.seq).toBe(s);
    expect(await open(root, { rollBytes: 1 }).append(entry(7))).toBe(true);
    expect(await open(root).head(kvSeq(0))).toBe(7);
  });

  it('are read without their lock file, and a reader finds what a writer appends once it has made one', async () => {
    const root = await restored(3);
    const reader = open(root);
    for (let s = 1; s <= 3; s++) expect((await reader.read(kvSeq(s)))!.seq).toBe(s);
    expect(await reader.read(kvSeq(4))).toBeUndefined();
    expect(fs.existsSync(path.join(root, SEGMENTS_DIR, 'LOCK'))).toBe(false);
    expect(await open(root).append(entry(4))).toBe(true);
    expect((await reader.read(kvSeq(4)))!.seq).toBe(4);
    expect(await reader.head(kvSeq(4))).toBe(4);
  });
});

describe('what a segment reader trusts of the lock file', () => {
  /** Writes the lock file's announced head (its second f64), as a writer that died before announcing leaves it. */
  const announce = (root: string, head: number) => {
    const fd = fs.openSync(path.join(root, SEGMENTS_DIR, 'LOCK'), 'r+');
    const b = Buffer.alloc(8);
    b.writeDoubleBE(head);
    fs.writeSync(fd, b, 0, 8, 8);
    fs.closeSync(fd);
  };

  it('while no segment changed, an announced head equal to what the reader has is the head: a record never announced shows once the next append announces', async () => {
    const root = await tempDir();
    const writer = await logOf(root, [40, 40, 40, 40]);
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(4);
    announce(root, 3);
    expect(await reader.head(kvSeq(3))).toBe(3);
    expect(await open(root).head(kvSeq(3))).toBe(4); // a reader that never listed reads the segments
    expect(await writer.append(entry(5))).toBe(true);
    expect(await reader.head(kvSeq(3))).toBe(5);
  });

  it('a synced entry that is no entry (damaged, or another history) is passed over: the reader reads the tail from its start', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 700, 40, 40])).close();
    const lock = path.join(root, SEGMENTS_DIR, 'LOCK');
    for (const synced of [12.00000000745058, -3, Number.NaN, 1e300, 2 ** 60, 99, 3.5]) {
      const fd = fs.openSync(lock, 'r+');
      const b = Buffer.alloc(8);
      b.writeDoubleBE(synced);
      fs.writeSync(fd, b, 0, 8, 16);
      fs.closeSync(fd);
      const reader = open(root);
      expect(await reader.head(kvSeq(0)), `synced ${synced}`).toBe(4);
      for (let seq = 1; seq <= 4; seq++) expect((await reader.read(kvSeq(seq)))?.seq).toBe(seq);
      reader.close();
    }
  });

  it('an announced head of 0 says nothing: a reader asking from 0 again reads the segments', async () => {
    const root = await tempDir();
    (await logOf(root, [40, 40])).close();
    announce(root, 0);
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(2);
    expect(await reader.head(kvSeq(0))).toBe(2);
  });
});

describe('the descriptors a segment reader keeps', () => {
  it('stay a few however many segments it reads, and those of segments replaced since are closed', async () => {
    const root = await tempDir();
    const writer = await logOf(root, Array.from({ length: 30 }, () => 40), { rollBytes: 1 });
    writer.close();
    const before = openFds();
    const reader = open(root);
    for (let s = 1; s <= 30; s++) expect((await reader.read(kvSeq(s)))!.seq).toBe(s);
    // Eight segments and the lock file.
    expect(openFds() - before).toBeLessThanOrEqual(9);
    const compactor = open(root);
    await compactor.compact(kvSeq(30));
    compactor.close();
    for (let s = 23; s <= 30; s++) expect((await reader.read(kvSeq(s)))!.kind).toBe('stub');
    expect(openFds() - before).toBeLessThanOrEqual(9);
    reader.close();
    expect(openFds()).toBe(before);
  });
});

/** Bytes this process has read through read calls so far (Linux): each test file runs in a process of its own. */
const bytesRead = () => Number(/rchar: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);

describe('a handle new to a segment', () => {
  it('reads its newest entries, or finds the log ends after them, without reading the records before them (what a process that opens a catalog does first); one further back, by reading it through', async () => {
    const root = await tempDir();
    const sizes = Array.from({ length: 3000 }, (_, i) => 200 + ((i * 7919) % 1500));
    (await logOf(root, sizes)).close();
    const segment = fs.statSync(path.join(root, SEGMENTS_DIR, segmentName(2))).size;
    expect(segment).toBeGreaterThan(2 << 20);
    for (const seq of [3000, 2999, 1500, 2]) {
      const reader = open(root);
      const before = bytesRead();
      const got = await reader.read(kvSeq(seq));
      const read = bytesRead() - before;
      expect(got?.seq).toBe(seq);
      const put = got!.mutations[0]!;
      expect(put.type === 'put' && Buffer.from(put.value).equals(Buffer.alloc(sizes[seq - 1]!, seq & 0xff))).toBe(true);
      // The newest entries from where the lock says the segment is synced; one further back by reading it through.
      if (seq >= 2999) expect(read, `bytes read for entry ${seq}`).toBeLessThan(64 << 10);
      else expect(read, `bytes read for entry ${seq}`).toBeGreaterThan(segment / 2);
      reader.close();
    }
    // And finds that the log ends there, as a process that opens a catalog whose index is up to date does.
    const reader = open(root);
    const before = bytesRead();
    expect(await reader.read(kvSeq(3001))).toBeUndefined();
    expect(bytesRead() - before, 'bytes read for entry 3001').toBeLessThan(64 << 10);
    reader.close();
  });

  it('a writer new to the log appends after the last entry without reading the records before it, in the tail or in the segments before', async () => {
    const root = await tempDir();
    const sizes = Array.from({ length: 3000 }, (_, i) => 200 + ((i * 7919) % 1500));
    // Segments of ~1 MiB: rolled ones are read to check that each ends where the next begins.
    (await logOf(root, sizes, { rollBytes: 1 << 20 })).close();
    expect(fs.readdirSync(path.join(root, SEGMENTS_DIR)).filter((n) => n.endsWith('.seg')).length).toBeGreaterThan(4);
    const writer = open(root, { rollBytes: 1 << 20 });
    const before = bytesRead();
    expect(await writer.append(entry(3001, 300))).toBe(true);
    expect(bytesRead() - before, 'bytes read by the first append').toBeLessThan(256 << 10);
    // And it reads every entry before it (the segment read through once) as a reader that reads them in order does.
    const through = open(root);
    for (let seq = 3001; seq >= 1; seq -= 7) expect((await writer.read(kvSeq(seq)))?.txn, `entry ${seq}`).toBe((await through.read(kvSeq(seq)))?.txn);
    writer.close();
    through.close();
  });

  it('finds every entry as a reader that read the segment through does, records of one to four sectors and a torn tail after them', async () => {
    const root = await tempDir();
    const sizes = Array.from({ length: 300 }, (_, i) => 10 + ((i * 7919) % 1900));
    (await logOf(root, sizes)).close();
    // The next append, torn: its first and third sectors landed, its second did not.
    const last = span(root, 300);
    const torn = encodeRecord(entry(301, 1200), Date.now());
    expect(torn.length).toBe(3 * SECTOR_BYTES);
    const fd = fs.openSync(last.file, 'r+');
    fs.writeSync(fd, torn, 0, SECTOR_BYTES, last.offset + last.length);
    fs.writeSync(fd, torn, 2 * SECTOR_BYTES, SECTOR_BYTES, last.offset + last.length + 2 * SECTOR_BYTES);
    fs.closeSync(fd);
    const through = open(root);
    expect(await through.head(kvSeq(0))).toBe(300);
    for (let seq = 1; seq <= 302; seq++) {
      const fresh = open(root);
      const [a, b] = [await fresh.read(kvSeq(seq)), await through.read(kvSeq(seq))];
      expect(a?.txn, `entry ${seq}`).toBe(b?.txn);
      expect(a === undefined).toBe(seq > 300);
      fresh.close();
    }
    through.close();
  });
});

describe('a record another process is writing as it is read', () => {
  /**
   * Entries 1–3, then entry 4 as a writer in another process leaves it part-way through its pwrite: the lock
   * held (by another descriptor), the append announced, the first 300 bytes of its record in place.
   * `finish` writes the rest and releases the lock, as that writer's append would.
   */
  async function appendUnderWay(root: string) {
    (await logOf(root, [40, 40, 40])).close();
    const writer = new AppendLock(path.join(root, SEGMENTS_DIR), true);
    await writer.take();
    const e4 = entry(4, 700);
    const record = encodeRecord(e4, Date.now());
    const third = span(root, 3);
    const at = third.offset + third.length;
    const fd = fs.openSync(third.file, 'r+');
    writer.announce(4, 3);
    fs.writeSync(fd, record, 0, 300, at);
    return {
      e4,
      finish: () => {
        fs.writeSync(fd, record, 300, record.length - 300, at + 300);
        fs.closeSync(fd);
        writer.release();
        writer.close();
      },
      abandon: () => {
        fs.closeSync(fd);
        writer.release();
        writer.close();
      },
    };
  }

  it('is read once its writer lets the lock go, not taken for damage', async () => {
    const root = await tempDir();
    const { e4, finish } = await appendUnderWay(root);
    const reader = open(root);
    const read = reader.read(kvSeq(4));
    const head = open(root).head(kvSeq(0));
    setTimeout(finish, 30);
    expect((await read)!.txn).toBe(e4.txn);
    expect(await head).toBe(4);
  });

  it('stays CORRUPT when the lock is let go and the record is still not whole', async () => {
    const root = await tempDir();
    const { abandon } = await appendUnderWay(root);
    const reader = open(root);
    const read = reader.read(kvSeq(4));
    setTimeout(abandon, 30);
    expect(await refusal(read, 'CORRUPT')).toMatch(/^log entry 4 .* cannot be read: its first sector fails its checksum/);
  });
});
