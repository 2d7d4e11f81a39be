// Segments written before the sector format (decision 0051) stay readable: a log of old segments reads
// entry for entry, its torn tail is cut as it was, a writer never appends to one (the next entry begins a
// segment of the current format), and compaction rewrites one in the current format.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { encodeEntry, type LogEntry } from '../../src/log/log-entry.js';
import { formatOf, SEGMENTS_DIR, segmentName } from '../../src/log/segment-file.js';
import { SegmentLog } from '../../src/log/segment-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';
import { entry, formatOneRecord } from '../support/segments.js';

const open = (root: string) => new SegmentLog(new DirectoryStore(root), root);
/** The entry read is the one written, field for field (as its frame says it). */
const same = (read: LogEntry | undefined, written: LogEntry) => expect(Buffer.from(encodeEntry(read!))).toEqual(Buffer.from(encodeEntry(written)));
const segmentFile = (root: string, first: number) => path.join(root, SEGMENTS_DIR, segmentName(first));

/** A log whose entries 1..n are in old-format segments (1 alone, the rest in segment 2), as an older version left it. */
async function oldLog(root: string, n: number): Promise<LogEntry[]> {
  const entries = Array.from({ length: n }, (_, i) => entry(i + 1, 60 + 37 * i));
  const log = open(root);
  expect(await log.append(entries[0]!)).toBe(true); // makes the directory and the lock file
  log.close();
  fs.writeFileSync(segmentFile(root, 1), formatOneRecord(entries[0]!, 1_000));
  fs.writeFileSync(segmentFile(root, 2), Buffer.concat(entries.slice(1).map((e, i) => formatOneRecord(e, 2_000 + i))));
  return entries;
}

describe('segments of the old format', () => {
  it('read entry for entry, with the time each was written', async () => {
    const root = await tempDir();
    const entries = await oldLog(root, 5);
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(5);
    for (const e of entries) same(await reader.read(e.seq), e);
    expect(await reader.writtenAt(kvSeq(3))).toBe(2_001);
    reader.close();
  });

  it('are never appended to: the next entry begins a segment of the current format, and the chain reads on', async () => {
    const root = await tempDir();
    const entries = await oldLog(root, 3);
    const before = fs.readFileSync(segmentFile(root, 2));
    const writer = open(root);
    const e4 = entry(4);
    expect(await writer.append(e4)).toBe(true);
    expect(await writer.append(entry(5))).toBe(true);
    writer.close();
    expect(fs.readFileSync(segmentFile(root, 2))).toEqual(before);
    expect(formatOf(fs.readFileSync(segmentFile(root, 4)))).toBe(2);
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(5);
    expect((await reader.read(kvSeq(3)))!.txn).toBe(entries[2]!.txn);
    expect((await reader.read(kvSeq(4)))!.txn).toBe(e4.txn);
    reader.close();
  });

  it('a torn old tail is cut by the next writer, whose entry then begins a new segment; damage in one is CORRUPT', async () => {
    const root = await tempDir();
    await oldLog(root, 3);
    const whole = fs.readFileSync(segmentFile(root, 2));
    fs.writeFileSync(segmentFile(root, 2), whole.subarray(0, whole.length - 5));
    const reader = open(root);
    expect(await reader.head(kvSeq(0))).toBe(2);
    reader.close();
    const e3 = entry(3);
    const writer = open(root);
    expect(await writer.append(e3)).toBe(true);
    writer.close();
    expect(fs.existsSync(segmentFile(root, 3))).toBe(true);
    expect((await open(root).read(kvSeq(3)))!.txn).toBe(e3.txn);
    const flipped = Buffer.from(whole);
    flipped[whole.length - 3]! ^= 0x10;
    fs.writeFileSync(segmentFile(root, 2), flipped);
    fs.rmSync(segmentFile(root, 3));
    const out = await open(root).read(kvSeq(3)).catch((e: unknown) => e);
    expect(isStrataError(out, 'CORRUPT') && /log entry 3\b/.test((out as Error).message), String(out)).toBe(true);
  });

  it('compaction rewrites an old segment in the current format, stubs and kept entries alike', async () => {
    const root = await tempDir();
    const entries = await oldLog(root, 5);
    const log = open(root);
    await log.compact(kvSeq(3));
    log.close();
    expect(formatOf(fs.readFileSync(segmentFile(root, 2)))).toBe(2);
    const reader = open(root);
    const kinds = [];
    for (let s = 1; s <= 5; s++) kinds.push((await reader.read(kvSeq(s)))!.kind);
    expect(kinds).toEqual(['commit', 'stub', 'stub', 'commit', 'commit']);
    same(await reader.read(kvSeq(5)), entries[4]!);
    expect(await reader.writtenAt(kvSeq(5))).toBe(2_003);
    reader.close();
  });
});
