// The segmented layout of the commit log: the conformance suite (with segments of one entry and of many, and
// through each test double of a store), then what only this layout has — torn tails cut off by the next lock
// holder and never read as entries, zeros where a file grew, damage at the tail that is not a torn tail,
// rolling, and compaction that replaces covered segments while other handles read and write.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { SECTOR_BYTES, SEGMENTS_DIR } from '../../src/log/segment-file.js';
import { entry, span, splice } from '../support/segments.js';
import { SegmentLog } from '../../src/log/segment-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import type { ObjectStore } from '../../src/store/object-store.js';
import { tempDir } from '../helpers.js';
import { passThroughDoubles } from '../store/doubles/pass-through.js';
import { commitLogConformance, type LogHarness } from './conformance/index.js';

/** A segmented log in `root`, each handle on a store `wrap` makes of a directory store there (the store itself by default). */
function segmentLayout(root: string, rollBytes: number, wrap = (store: ObjectStore) => store): LogHarness {
  const open = () => {
    const store = wrap(new DirectoryStore(root));
    // Where the segments go is what the store says, as openLog takes it: a wrapper must pass it on.
    if (store.localRoot !== root) throw new Error(`${store.description} has localRoot ${store.localRoot}, not ${root}`);
    return new SegmentLog(store, store.localRoot, { rollBytes });
  };
  const log = open();
  return {
    log,
    reopen: async () => open(),
    async damage(seq, how) {
      const s = span(root, seq);
      const record = fs.readFileSync(s.file).subarray(s.offset, s.offset + s.length);
      if ('truncate' in how) return splice(s, record.subarray(0, how.truncate % record.length));
      const b = Buffer.from(record);
      const at = how.flip % b.length;
      b[at] = b[at]! ^ how.xor;
      splice(s, b);
    },
    remove: async (seq) => splice(span(root, seq), new Uint8Array(0)),
    async misplace(from, to) {
      const s = span(root, from);
      splice(span(root, to), fs.readFileSync(s.file).subarray(s.offset, s.offset + s.length));
    },
    async interruptCheckpoint(seq) {
      const c = (await log.checkpoints.list()).find((x) => x.seq === seq);
      if (c === undefined) throw new Error(`the store has no checkpoint ${seq}`);
      await new DirectoryStore(root).delete(c.keys.filter((k) => k.endsWith('/manifest')));
    },
  };
}

const segments = { entriesByName: false };
commitLogConformance('segment layout, one entry per segment', async () => segmentLayout(await tempDir(), 1), segments);
commitLogConformance('segment layout, segments of many entries', async () => segmentLayout(await tempDir(), 1 << 20), segments);
for (const [name, wrap] of Object.entries(passThroughDoubles)) {
  commitLogConformance(`segment layout through the ${name} over a directory`, async () => segmentLayout(await tempDir(), 1 << 20, wrap), segments);
}


/** Whether the file holds only zeros from `offset` on. */
const zerosFrom = (file: string, offset: number) => fs.readFileSync(file).subarray(offset).every((b) => b === 0);

async function appendAll(log: SegmentLog, from: number, to: number): Promise<void> {
  for (let s = from; s <= to; s++) expect(await log.append(entry(s))).toBe(true);
}

const corrupt = (e: unknown, seq: number) => {
  expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
  expect((e as Error).message).toMatch(new RegExp(`log entry ${seq}\\b`));
};

describe('the segment layout', () => {
  it('a torn tail — any prefix of the last record — is not an entry to any reader, and the next lock holder cuts it off', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root);
    await appendAll(log, 1, 3);
    expect(await log.append(entry(4, 1500))).toBe(true); // four sectors
    const last = span(root, kvSeq(4));
    const whole = fs.readFileSync(last.file);
    for (const keep of [1, 10, SECTOR_BYTES - 1, SECTOR_BYTES, SECTOR_BYTES + 5, last.length - 1]) {
      fs.writeFileSync(last.file, whole.subarray(0, last.offset + keep));
      const reader = new SegmentLog(new DirectoryStore(root), root);
      expect(await reader.read(kvSeq(4)), `keep ${keep}`).toBeUndefined();
      expect(await reader.head(kvSeq(0))).toBe(3);
      const writer = new SegmentLog(new DirectoryStore(root), root);
      corrupt(await writer.append(entry(5)).catch((e: unknown) => e), 5); // 4 is not there: 5 would leave a gap
      const e4 = entry(4);
      expect(await writer.append(e4)).toBe(true);
      expect((await reader.read(kvSeq(4)))!.txn).toBe(e4.txn);
      expect(zerosFrom(last.file, last.offset + span(root, kvSeq(4)).length), `keep ${keep}`).toBe(true);
      writer.close();
      reader.close();
      fs.writeFileSync(last.file, whole);
    }
  });

  it('the space written ahead of the records is the end of the log; anything but zeros there is CORRUPT, and so is a damaged last record', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root);
    await appendAll(log, 1, 3);
    const last = span(root, kvSeq(3));
    const whole = fs.readFileSync(last.file);
    expect(whole.length).toBeGreaterThan(last.offset + last.length + 4096); // written ahead
    expect(zerosFrom(last.file, last.offset + last.length)).toBe(true);
    const reader = new SegmentLog(new DirectoryStore(root), root);
    expect(await reader.head(kvSeq(0))).toBe(3);
    expect(await reader.read(kvSeq(4))).toBeUndefined();
    // Garbage where the next record would begin, or further on: damage, not a crash.
    for (const at of [0, 3 * SECTOR_BYTES + 7]) {
      const junk = Buffer.from(whole);
      junk.fill(0xab, last.offset + last.length + at, last.offset + last.length + at + 64);
      fs.writeFileSync(last.file, junk);
      if (at === 0) corrupt(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0)).catch((e: unknown) => e), 4);
      corrupt(await new SegmentLog(new DirectoryStore(root), root).append(entry(4)).catch((e: unknown) => e), 4);
    }
    // A complete last record whose entry fails its checksum is CORRUPT too, never cut off.
    const flipped = Buffer.from(whole);
    flipped[last.offset + 100]! ^= 0x40;
    fs.writeFileSync(last.file, flipped);
    corrupt(await new SegmentLog(new DirectoryStore(root), root).read(kvSeq(3)).catch((e: unknown) => e), 3);
    corrupt(await new SegmentLog(new DirectoryStore(root), root).append(entry(4)).catch((e: unknown) => e), 3);
    // A sector count that was damaged (so that the record would seem to run on into zeros) fails the sector's CRC.
    const longer = Buffer.from(whole);
    longer.writeUInt32BE(longer.readUInt32BE(last.offset + 16) + 1, last.offset + 16);
    fs.writeFileSync(last.file, longer);
    corrupt(await new SegmentLog(new DirectoryStore(root), root).read(kvSeq(3)).catch((e: unknown) => e), 3);
    corrupt(await new SegmentLog(new DirectoryStore(root), root).append(entry(4)).catch((e: unknown) => e), 3);
  });

  it('rolls to a new segment past rollBytes, entry 1 alone in the first; a missing segment is a gap naming its first entry', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root), root, { rollBytes: 2000 });
    await appendAll(log, 1, 40);
    const names = fs.readdirSync(path.join(root, SEGMENTS_DIR)).filter((n) => n.endsWith('.seg')).sort();
    expect(names[0]).toBe('00000000000000000001.seg');
    expect(names[1]).toBe('00000000000000000002.seg');
    expect(names.length).toBeGreaterThan(3);
    // Rolled segments keep nothing of the space written ahead: they end with their last record.
    for (const n of names.slice(1, -1)) expect(fs.statSync(path.join(root, SEGMENTS_DIR, n)).size).toBeLessThan(2000 + SECTOR_BYTES);
    const other = new SegmentLog(new DirectoryStore(root), root, { rollBytes: 2000 });
    expect(await other.head(kvSeq(0))).toBe(40);
    for (let s = 1; s <= 40; s++) expect((await other.read(kvSeq(s)))!.seq).toBe(s);
    const middle = names[2]!;
    const first = Number(middle.slice(0, 20));
    fs.rmSync(path.join(root, SEGMENTS_DIR, middle));
    corrupt(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0)).catch((e: unknown) => e), first);
    corrupt(await new SegmentLog(new DirectoryStore(root), root).append(entry(41)).catch((e: unknown) => e), first);
  });

  it('compaction replaces covered segments while another handle keeps reading and appending; readers see stubs, writers the true tail', async () => {
    const root = await tempDir();
    const a = new SegmentLog(new DirectoryStore(root), root, { rollBytes: 1500 });
    const b = new SegmentLog(new DirectoryStore(root), root, { rollBytes: 1500 });
    for (let s = 1; s <= 30; s++) expect(await a.append(entry(s, 1000))).toBe(true); // three sectors each; a stub takes one
    for (let s = 1; s <= 30; s++) expect((await b.read(kvSeq(s)))!.kind).toBe('commit');
    const before = fs.readdirSync(path.join(root, SEGMENTS_DIR)).filter((n) => n.endsWith('.seg')).reduce((n, f) => n + fs.statSync(path.join(root, SEGMENTS_DIR, f)).size, 0);
    await a.compact(kvSeq(25));
    expect(await b.compactedThrough()).toBe(25);
    for (let s = 2; s <= 25; s++) expect((await b.read(kvSeq(s)))!.kind, `entry ${s}`).toBe('stub');
    for (const s of [1, 26, 30]) expect((await b.read(kvSeq(s)))!.kind).toBe('commit');
    expect(await b.append(entry(30))).toBe(false);
    expect(await b.append(entry(31))).toBe(true);
    expect(await a.append(entry(31))).toBe(false);
    expect(await a.append(entry(32))).toBe(true);
    expect((await b.read(kvSeq(32)))!.seq).toBe(32);
    expect(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0))).toBe(32);
    const after = fs.readdirSync(path.join(root, SEGMENTS_DIR)).filter((n) => n.endsWith('.seg')).reduce((n, f) => n + fs.statSync(path.join(root, SEGMENTS_DIR, f)).size, 0);
    expect(after).toBeLessThan(before);
  });

  it('a relaxed log is atomic by checksum: a torn tail left by a write never synced reads as the end', async () => {
    const root = await tempDir();
    const log = new SegmentLog(new DirectoryStore(root, { sync: false }), root, { sync: false });
    await appendAll(log, 1, 3);
    const last = span(root, kvSeq(3));
    const whole = fs.readFileSync(last.file);
    fs.writeFileSync(last.file, Buffer.concat([whole, fs.readFileSync(last.file).subarray(last.offset, last.offset + 7)]));
    expect(await new SegmentLog(new DirectoryStore(root), root).head(kvSeq(0))).toBe(3);
  });
});
