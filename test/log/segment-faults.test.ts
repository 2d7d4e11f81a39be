// A segmented log's appends when the disk fails them: a write that fails, or a sync that reports an error
// after the bytes were written, is cut back under the lock — the append fails STORE_UNAVAILABLE, no reader
// ever gets the entry, and the next append takes that number. A new segment that cannot be made is no entry;
// one linked whose directory did not sync may or may not survive a crash, and says so; a compaction that
// fails leaves the segment as it was; a record that reads otherwise than the scan found it is read again once,
// then CORRUPT; a directory listed out of order is read in order; writes the disk takes a few bytes at a time are carried on to the end. And which syncs each mode makes. Faults are injected at node:fs
// (faulty-fs.ts), which this file's worker alone patches.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { crc32 } from 'node:zlib';
import { encodeRecord, SECTOR_BYTES, SEGMENTS_DIR, segmentName } from '../../src/log/segment-file.js';
import { SegmentLog } from '../../src/log/segment-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { injectFsFaults } from '../support/faulty-fs.js';
import { entry, span } from '../support/segments.js';
import { tempDir } from '../helpers.js';

let failWrite = false;
/** Fail the writes of zeros ahead of the records, as a disk with no room for them would. */
let failAhead = false;
let failSync = false;
let failDirSync = false;
let rewrite: ((bytes: Buffer) => void) | undefined;
let writeLimit: number | undefined;
let listing: ((names: string[]) => string[]) | undefined;
let syncs = 0;
let dirSyncs = 0;
const eio = (call: string) => Object.assign(new Error(`EIO: i/o error, ${call}`), { code: 'EIO' });
injectFsFaults({
  beforeSegmentWrite: (bytes) => {
    if (failWrite) throw eio('write');
    if (failAhead && bytes.every((b) => b === 0)) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  },
  segmentSyncError: () => (failSync ? eio('fdatasync') : undefined),
  segmentWriteLimit: () => writeLimit,
  segmentListing: (names) => listing?.(names) ?? names,
  afterSegmentSync: () => void syncs++,
  afterSegmentRead: (bytes) => rewrite?.(bytes),
  segmentDirSyncError: () => {
    dirSyncs++;
    return failDirSync ? eio('fsync') : undefined;
  },
});

const failure = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  failWrite = failSync = failDirSync = false;
  expect(isStrataError(e, 'STORE_UNAVAILABLE'), String(e)).toBe(true);
  return e as Error;
};

const segmentFiles = (root: string) => fs.readdirSync(path.join(root, SEGMENTS_DIR)).filter((f) => f !== 'LOCK').sort();


describe('segment appends the disk fails', () => {
  for (const fault of ['write', 'sync'] as const) {
    it(`a failed ${fault} is cut back: STORE_UNAVAILABLE, never an entry, and the number is taken by the next append`, async () => {
      const root = await tempDir();
      const log = new SegmentLog(new DirectoryStore(root), root);
      for (let s = 1; s <= 3; s++) expect(await log.append(entry(s))).toBe(true);
      const reader = new SegmentLog(new DirectoryStore(root), root);
      expect(await reader.head(kvSeq(0))).toBe(3);
      if (fault === 'write') failWrite = true;
      else failSync = true;
      const err = await log.append(entry(4)).catch((e: unknown) => e);
      failWrite = failSync = false;
      expect(isStrataError(err, 'STORE_UNAVAILABLE'), String(err)).toBe(true);
      expect((err as Error).message).toMatch(/log entry 4 was not written.*EIO/);
      expect(await reader.read(kvSeq(4))).toBeUndefined();
      expect(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0))).toBe(3);
      const next = entry(4);
      expect(await log.append(next)).toBe(true);
      expect((await reader.read(kvSeq(4)))!.txn).toBe(next.txn);
      expect(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0))).toBe(4);
    });
  }
});

describe('new segments and compaction the disk fails', () => {
  for (const fault of ['write', 'sync'] as const) {
    it(`a new segment whose ${fault === 'write' ? 'first record cannot be written' : 'predecessor cannot be synced'} is no entry: nothing of it is left, and the next append makes it`, async () => {
      const root = await tempDir();
      const log = new SegmentLog(new DirectoryStore(root), root);
      expect(await log.append(entry(1))).toBe(true);
      if (fault === 'write') failWrite = true;
      else failSync = true;
      const err = await failure(log.append(entry(2)));
      expect(err.message).toBe(
        `log entry 2 was not written (a new segment ${segmentName(2)} could not be made) in ${log.description}: EIO: i/o error, ${fault === 'write' ? 'write' : 'fdatasync'}`,
      );
      expect(segmentFiles(root)).toEqual([segmentName(1)]);
      expect(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0))).toBe(1);
      expect(await log.append(entry(2))).toBe(true);
      expect(segmentFiles(root)).toEqual([segmentName(1), segmentName(2)]);
    });
  }

  it('a new segment linked whose directory did not sync is there, and the commit is said to be in doubt', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root);
    expect(await log.append(entry(1))).toBe(true);
    failDirSync = true;
    const err = await failure(log.append(entry(2)));
    expect(err.message).toBe(
      `log entry 2 was written to a new segment ${segmentName(2)} of ${log.description}, but its directory could not be synced ` +
        '(EIO: i/o error, fsync), so the commit may or may not survive a crash; refresh() and look for it in snapshots() before running it again',
    );
    expect(err.cause).toBeInstanceOf(Error);
    expect(segmentFiles(root)).toEqual([segmentName(1), segmentName(2)]);
    expect((await new SegmentLog(new DirectoryStore(root), root).read(kvSeq(2)))!.seq).toBe(2);
    expect(await log.append(entry(3))).toBe(true);
  });

  it('a compaction whose segment cannot be written leaves the segment as it was, and can be run again', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root);
    for (let s = 1; s <= 4; s++) expect(await log.append(entry(s))).toBe(true);
    failWrite = true;
    const err = await failure(log.compact(kvSeq(3)));
    expect(err.message).toBe(`segment ${segmentName(2)} could not be compacted in ${log.description}: EIO: i/o error, write`);
    expect(segmentFiles(root)).toEqual([segmentName(1), segmentName(2)]);
    const reader = new SegmentLog(new DirectoryStore(root), root);
    expect((await reader.read(kvSeq(3)))!.kind).toBe('commit');
    expect(await reader.compactedThrough()).toBe(0);
    await log.compact(kvSeq(3));
    expect((await reader.read(kvSeq(3)))!.kind).toBe('stub');
    expect((await reader.read(kvSeq(4)))!.kind).toBe('commit');
  });
});

describe('the syncs of each mode', () => {
  /** Segment and directory syncs of appending entries 1–4 (the last with `overlap`) and compacting through 3. */
  async function counted(sync: boolean): Promise<{ syncs: number; dirSyncs: number }[]> {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root, { sync }), root, { sync });
    syncs = dirSyncs = 0;
    const steps = [];
    for (let s = 1; s <= 4; s++) {
      expect(await log.append(entry(s), { overlap: s === 4 })).toBe(true);
      steps.push({ syncs, dirSyncs });
    }
    await log.compact(kvSeq(3));
    steps.push({ syncs, dirSyncs });
    return steps;
  }

  it('durable: each append syncs its segment; a new one syncs the one before it, then its own file and the directory; compaction its file and the directory', async () => {
    expect(await counted(true)).toEqual([
      { syncs: 1, dirSyncs: 1 },
      { syncs: 3, dirSyncs: 2 },
      { syncs: 4, dirSyncs: 2 },
      { syncs: 5, dirSyncs: 2 },
      { syncs: 6, dirSyncs: 3 },
    ]);
  });

  it('relaxed: appends sync nothing, but a new segment still syncs the one before it and its own file before it is linked, so a crash leaves no gap', async () => {
    expect(await counted(false)).toEqual([
      { syncs: 1, dirSyncs: 0 },
      { syncs: 3, dirSyncs: 0 },
      { syncs: 3, dirSyncs: 0 },
      { syncs: 3, dirSyncs: 0 },
      { syncs: 4, dirSyncs: 0 },
    ]);
  });
});

describe('a compaction that fails after replacing a segment', () => {
  it('has told every writer the segments changed: the next append lands in the segment the directory names', async () => {
    const root = await tempDir();
    const compacting = new SegmentLog(new DirectoryStore(root), root);
    for (let s = 1; s <= 4; s++) expect(await compacting.append(entry(s))).toBe(true);
    const writer = new SegmentLog(new DirectoryStore(root), root);
    expect(await writer.append(entry(5))).toBe(true); // holds the tail segment open
    failDirSync = true; // the replacement is renamed into place; the directory's sync then fails
    await failure(compacting.compact(kvSeq(3)));
    expect(await writer.append(entry(6))).toBe(true);
    const reader = new SegmentLog(new DirectoryStore(root), root);
    expect(await reader.head(kvSeq(0))).toBe(6);
    expect((await reader.read(kvSeq(6)))!.seq).toBe(6);
  });
});

describe('a writer whose append failed, while another appended after it', () => {
  it('writes ahead only past the records, whatever it last knew of the file: the other writer\'s entries stay', async () => {
    const root = await tempDir();
    const a = new SegmentLog(new DirectoryStore(root), root);
    for (let s = 1; s <= 3; s++) expect(await a.append(entry(s))).toBe(true);
    await failure(((failWrite = true), a.append(entry(4))));
    const b = new SegmentLog(new DirectoryStore(root), root);
    for (let s = 4; s <= 5; s++) expect(await b.append(entry(s))).toBe(true);
    // A reads what B wrote (as a refresh does), so the lock names A's last entry again.
    expect(await a.head(kvSeq(0))).toBe(5);
    expect(await a.append(entry(6))).toBe(true);
    const reader = new SegmentLog(new DirectoryStore(root), root);
    expect(await reader.head(kvSeq(0))).toBe(6);
    for (let s = 1; s <= 6; s++) expect((await reader.read(kvSeq(s)))!.seq).toBe(s);
  });
});

describe('space written ahead that the disk has no room for', () => {
  it('is not needed: the record is written past the end, as a segment would grow without it', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root);
    for (let s = 1; s <= 2; s++) expect(await log.append(entry(s))).toBe(true);
    log.close();
    const last = span(root, 2);
    fs.truncateSync(last.file, last.offset + last.length); // nothing left ahead
    const writer = new SegmentLog(new DirectoryStore(root), root);
    failAhead = true;
    try {
      expect(await writer.append(entry(3))).toBe(true);
    } finally {
      failAhead = false;
    }
    const third = span(root, 3);
    expect(fs.statSync(third.file).size).toBe(third.offset + third.length);
    expect((await new SegmentLog(new DirectoryStore(root), root).read(kvSeq(3)))!.seq).toBe(3);
    expect(await writer.append(entry(4))).toBe(true);
    expect(fs.statSync(third.file).size).toBeGreaterThan(span(root, 4).offset + span(root, 4).length); // written ahead again
  });
});

describe('a record that reads otherwise than when its segment was scanned', () => {
  /** The header of entry 3 as its read after the scan returns it, `times` times. */
  const alterHeader = (times: number, change: (header: Buffer) => void) => {
    let left = times;
    rewrite = (bytes) => {
      if (left === 0 || bytes.length !== SECTOR_BYTES || bytes.readDoubleBE(4) !== 3) return;
      left--;
      change(bytes);
    };
  };
  const namingEntry2 = (header: Buffer) => {
    header.writeDoubleBE(2, 4);
    header.writeUInt32BE(crc32(header.subarray(24), crc32(header.subarray(0, 20))), 20);
  };

  it('is read again once (the segment may have been replaced), and read whole if it then reads as scanned', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root);
    for (let s = 1; s <= 3; s++) expect(await log.append(entry(s))).toBe(true);
    // A reader that has scanned the segment through (one new to it finds a record by a search of its own).
    const reader = new SegmentLog(new DirectoryStore(root), root);
    expect(await reader.head(kvSeq(0))).toBe(3);
    alterHeader(1, namingEntry2);
    const read = await reader.read(kvSeq(3));
    rewrite = undefined;
    expect(read!.seq).toBe(3);
  });

  for (const [how, change, why] of [
    ['fails its checksum', (h: Buffer) => void (h[0]! ^= 1), 'its header fails its checksum'],
    ['names another entry', namingEntry2, 'the record there names entry 2'],
  ] as const) {
    it(`is CORRUPT when it still ${how} after the second scan, saying so`, async () => {
      const root = await tempDir();
      const log = new SegmentLog(new DirectoryStore(root), root);
      for (let s = 1; s <= 3; s++) expect(await log.append(entry(s))).toBe(true);
      const third = span(root, 3);
      const reader = new SegmentLog(new DirectoryStore(root), root);
      expect(await reader.head(kvSeq(0))).toBe(3);
      alterHeader(2, change);
      const err = await reader.read(kvSeq(3)).catch((e: unknown) => e);
      rewrite = undefined;
      expect(isStrataError(err, 'CORRUPT'), String(err)).toBe(true);
      expect((err as Error).message).toBe(
        `log entry 3 (segment ${SEGMENTS_DIR}/${segmentName(2)} at byte ${third.offset} in ${reader.description}) cannot be read: ${why}. ` +
          'The log is damaged: restore the segment from a backup (strata verify lists what else is damaged)',
      );
    });
  }
});

describe('a segment directory listed out of order', () => {
  it('is read in the order of the segments\' numbers, by readers and writers', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root, { rollBytes: 1 });
    for (let s = 1; s <= 6; s++) expect(await log.append(entry(s))).toBe(true);
    log.close();
    // Newest first, as a file system that lists by hash or by age may give them.
    listing = (names) => [...names].sort().reverse();
    try {
      const reader = new SegmentLog(new DirectoryStore(root), root);
      expect(await reader.head(kvSeq(0))).toBe(6);
      for (let s = 1; s <= 6; s++) expect((await reader.read(kvSeq(s)))!.seq).toBe(s);
      expect(await new SegmentLog(new DirectoryStore(root), root, { rollBytes: 1 }).append(entry(7))).toBe(true);
      expect(await reader.head(kvSeq(6))).toBe(7);
    } finally {
      listing = undefined;
    }
  });
});

describe('the sync of a torn tail cut off', () => {
  it('is made by a writer before it appends, once, durable or relaxed (a relaxed one syncs nothing else)', async () => {
    for (const [sync, expected] of [
      [true, [2, 1]],
      [false, [1, 0]],
    ] as const) {
      const root = await tempDir();
      const log = new SegmentLog(new DirectoryStore(root, { sync }), root, { sync });
      for (let s = 1; s <= 2; s++) expect(await log.append(entry(s))).toBe(true);
      log.close();
      // The first of two sectors of an append of entry 3 a crash cut short.
      const last = span(root, 2);
      const fd = fs.openSync(last.file, 'r+');
      fs.writeSync(fd, encodeRecord(entry(3, 700), Date.now()), 0, SECTOR_BYTES, last.offset + last.length);
      fs.closeSync(fd);
      const writer = new SegmentLog(new DirectoryStore(root, { sync }), root, { sync });
      const counts = [];
      for (const s of [3, 4]) {
        syncs = 0;
        expect(await writer.append(entry(s))).toBe(true);
        counts.push(syncs);
      }
      expect(counts, `sync: ${sync}`).toEqual(expected);
    }
  });
});

describe('writes the disk takes a few bytes at a time', () => {
  it('are carried on where they stopped: appends, new segments and compaction write every byte in its place', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root, { rollBytes: 300 });
    writeLimit = 7;
    try {
      for (let s = 1; s <= 8; s++) expect(await log.append(entry(s))).toBe(true);
      await log.compact(kvSeq(5));
    } finally {
      writeLimit = undefined;
    }
    const reader = new SegmentLog(new DirectoryStore(root), root);
    expect(await reader.head(kvSeq(0))).toBe(8);
    const kinds = [];
    for (let s = 1; s <= 8; s++) kinds.push((await reader.read(kvSeq(s)))!.kind);
    expect(kinds).toEqual(['commit', 'stub', 'stub', 'stub', 'stub', 'commit', 'commit', 'commit']);
  });
});
