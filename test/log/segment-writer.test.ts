// The writing side of the segmented log (segment-log.ts) past its torn tails and faults: what it calls itself,
// where it rolls, the descriptors it keeps, a tail segment compaction replaced under another writer, and which
// segments a compaction rewrites and what it marks.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { SEGMENTS_DIR, segmentName } from '../../src/log/segment-file.js';
import { SegmentLog, type SegmentLogOptions } from '../../src/log/segment-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';
import { entry, span } from '../support/segments.js';

const open = (root: string, opts?: SegmentLogOptions) => new SegmentLog(new DirectoryStore(root), root, opts);

async function logOf(root: string, sizes: number[], opts?: SegmentLogOptions): Promise<SegmentLog> {
  const log = open(root, opts);
  for (const [i, bytes] of sizes.entries()) expect(await log.append(entry(i + 1, bytes))).toBe(true);
  return log;
}

const segmentNames = (root: string) => fs.readdirSync(path.join(root, SEGMENTS_DIR)).filter((f) => f !== 'LOCK').sort();
const inode = (root: string, first: number) => fs.statSync(path.join(root, SEGMENTS_DIR, segmentName(first))).ino;
const openFds = () => fs.readdirSync('/proc/self/fd').length;

describe('a segment writer', () => {
  it('is the segments layout, described by its store', async () => {
    const root = await tempDir();
    const log = open(root);
    expect(log.layout).toBe('segments');
    expect(log.description).toBe(`directory ${root}, segmented log`);
  });

  it('takes no entry past the one after its end: that would leave a gap', async () => {
    const root = await tempDir();
    const log = await logOf(root, [40, 40, 40]);
    const out = await log.append(entry(5)).catch((e: unknown) => e);
    expect(isStrataError(out, 'CORRUPT'), String(out)).toBe(true);
    expect((out as Error).message).toBe(`log entry 5 cannot be appended to ${log.description}: the log ends at entry 3, and no writer may leave a gap`);
    expect(await log.append(entry(3))).toBe(false);
  });

  it('rolls to a new segment once the tail has reached rollBytes, not before', async () => {
    const root = await tempDir();
    (await logOf(root, [40])).close();
    const record = span(root, 1).length;
    // Entries 2 and 3 fill segment 2 to exactly rollBytes: entry 4 begins the next.
    const log = open(root, { rollBytes: 2 * record });
    for (let s = 2; s <= 5; s++) expect(await log.append(entry(s))).toBe(true);
    expect(segmentNames(root)).toEqual([segmentName(1), segmentName(2), segmentName(4)]);
  });

  it('keeps a few descriptors open however many segments it makes and compacts, and none once closed', async () => {
    const root = await tempDir();
    const before = openFds();
    const log = await logOf(root, Array.from({ length: 20 }, () => 40), { rollBytes: 1 });
    await log.compact(kvSeq(19));
    // The lock file, the tail, and what its reader side keeps (at most eight segments).
    expect(openFds() - before).toBeLessThanOrEqual(10);
    log.close();
    expect(openFds()).toBe(before);
  });

  it('appends after a tail segment that compaction replaced under it, though another writer has grown it past where it ended', async () => {
    const root = await tempDir();
    const compactor = await logOf(root, [40, 3000, 3000, 3000, 3000]);
    const writer = open(root);
    expect(await writer.append(entry(6, 3000))).toBe(true);
    await compactor.compact(kvSeq(5));
    expect(await compactor.append(entry(7, 20_000))).toBe(true);
    expect(await writer.append(entry(8))).toBe(true);
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(8);
    expect((await reader.read(kvSeq(8)))!.seq).toBe(8);
    expect((await reader.read(kvSeq(5)))!.kind).toBe('stub');
  });
});

describe('segment compaction', () => {
  it('rewrites only the segments holding entries after the last mark through the one asked, and marks once', async () => {
    const root = await tempDir();
    const log = await logOf(root, Array.from({ length: 6 }, () => 40), { rollBytes: 1 });
    await log.compact(kvSeq(3));
    const inodes = () => [1, 2, 3, 4, 5, 6].map((s) => inode(root, s));
    const was = inodes();
    await log.compact(kvSeq(4));
    expect(inodes().map((ino, i) => ino === was[i])).toEqual([true, true, true, false, true, true]);
    expect((await open(root).read(kvSeq(4)))!.kind).toBe('stub');
    expect((await open(root).read(kvSeq(5)))!.kind).toBe('commit');
    // Through an entry already compacted: nothing rewritten, no mark below the one there.
    const now = inodes();
    await log.compact(kvSeq(2));
    expect(inodes()).toEqual(now);
    expect(fs.readdirSync(path.join(root, 'compacted'))).toEqual(['00000000000000000004']);
  });

  it('over an entry whose frame is damaged is CORRUPT naming the entry and where it is', async () => {
    const root = await tempDir();
    const log = await logOf(root, [40, 40, 40, 40]);
    const third = span(root, 3);
    const b = fs.readFileSync(third.file);
    b[third.offset + third.length - 1]! ^= 0x40;
    fs.writeFileSync(third.file, b);
    const out = await log.compact(kvSeq(4)).catch((e: unknown) => e);
    expect(isStrataError(out, 'CORRUPT'), String(out)).toBe(true);
    expect((out as Error).message).toMatch(
      new RegExp(`^segment ${SEGMENTS_DIR}/${segmentName(2)} at byte ${third.offset} \\(log entry 3\\) cannot be read: its first sector fails its checksum\\. The store's log is damaged`),
    );
  });
});

describe('one handle appending and compacting at once', () => {
  /** Resolves once a temporary file is in the segments directory: a compaction is writing a segment's replacement. */
  async function replacementBeingWritten(root: string): Promise<void> {
    const dir = path.join(root, SEGMENTS_DIR);
    for (let turns = 0; turns < 100_000; turns++) {
      if (fs.readdirSync(dir).some((f) => f.startsWith('tmp-'))) return;
      await new Promise((r) => setImmediate(r));
    }
    throw new Error('no compaction wrote a replacement segment');
  }

  it('keeps an entry appended while the compaction of its tail segment is syncing the replacement', async () => {
    const root = await tempDir();
    const log = await logOf(root, [40, 40, 40, 40]);
    const compacting = log.compact(kvSeq(3));
    await replacementBeingWritten(root);
    expect(await log.append(entry(5))).toBe(true);
    await compacting;
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(5);
    expect((await reader.read(kvSeq(5)))!.seq).toBe(5);
    expect((await reader.read(kvSeq(3)))!.kind).toBe('stub');
  });
});
