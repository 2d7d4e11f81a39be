// Checkpoints written after another (decision 0059): what changed since the newest one, read over it. A new
// machine that starts from one reads the same catalog as the writer, at every depth of a stack; a full stack
// starts again over its whole checkpoint; the next is whole when the changes pass half the whole one, and
// after an entry that deletes (excision), so pruning can take what was excised; pruning keeps what a kept checkpoint is read over; a
// damaged checkpoint anywhere in a stack is passed over, never read as another catalog.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/catalog/catalog.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { dumpCatalog, openCatalog, readAll, tempDir } from '../helpers.js';

const file = (p: string, records = 1) => ({ path: p, recordCount: records, fileSizeBytes: 10 * records });

/** A catalog whose whole checkpoint holds more keys than the least a stack is written over (2,500 files: two keys a file, its row and its path's). */
async function large(dir: string): Promise<Catalog> {
  const c = await openCatalog({ dir, checkpointEvery: 0 });
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
  await c.transaction((tx) => tx.addDataFiles('main', 't', Array.from({ length: 2500 }, (_, i) => file(`base/${i}.parquet`))));
  return c;
}

const commits = async (c: Catalog, from: number, n: number) => {
  for (let i = from; i < from + n; i++) await c.transaction((tx) => tx.addDataFile('main', 't', file(`f${i}.parquet`, i + 1)));
};

/** What a new machine reads, starting from the store's checkpoints (the newest it can read) and the log. */
async function newMachine(dir: string) {
  const fresh = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
  try {
    return await dumpCatalog(fresh);
  } finally {
    await fresh.close();
  }
}

/** A whole checkpoint and two after it, each after two more commits. */
async function stackOfThree(dir: string) {
  const c = await large(dir);
  const whole = await c.checkpoint();
  await commits(c, 0, 2);
  const first = await c.checkpoint();
  await commits(c, 2, 2);
  const second = await c.checkpoint();
  return { c, whole, first, second };
}

/** Flips bits of one byte of a file (`at` from its end when negative); returns the bytes it held before. */
async function flip(file: string, at: number, mask: number): Promise<Buffer> {
  const original = await readFile(file);
  const damaged = Buffer.from(original);
  damaged[at < 0 ? damaged.length + at : at]! ^= mask;
  await writeFile(file, damaged);
  return original;
}

/** A new machine's catalog, opened from the store's checkpoints and log. */
const newMachineOpen = async (dir: string) => openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });

/** Everything a catalog holds at its newest snapshot. */
async function newestOf(c: Catalog) {
  const [newest] = await c.snapshots({ newestFirst: true, limit: 1 });
  return readAll(c, newest!.id);
}

const checkpointDirs = async (dir: string) => (await readdir(path.join(dir, 'store', 'checkpoints'))).map(Number);
const objectsOf = async (dir: string, seq: number) => readdir(path.join(dir, 'store', 'checkpoints', String(seq).padStart(20, '0')));

describe('checkpoints after another', () => {
  it('hold what changed since the newest one, and a new machine reads the same catalog from each depth of the stack', async () => {
    const dir = await tempDir();
    const c = await large(dir);
    const whole = await c.checkpoint();
    expect(whole.after).toBeNull();
    const stack = [whole];
    for (let depth = 1; depth < 8; depth++) {
      await commits(c, depth * 10, 3);
      if (depth === 3) await c.transaction((tx) => tx.addColumn('main', 't', { name: 'y', type: 'varchar' }));
      const cp = await c.checkpoint();
      expect(cp.after).toBe(stack.at(-1)!.seq);
      // Three files' rows and their indexes, the snapshots, the stats: far from the whole one's keys.
      expect(cp.keys).toBeLessThan(whole.keys / 20);
      stack.push(cp);
      // The log through it compacted: the new machine has the stack to read, or nothing.
      expect(await c.compactLog({ minAgeMs: 0 })).toMatchObject({ through: cp.seq });
      expect(await newMachine(dir)).toEqual(await dumpCatalog(c));
    }
    expect((await objectsOf(dir, stack.at(-1)!.seq)).filter((o) => o.startsWith('manifest'))).toEqual([`manifest-after-${String(stack.at(-2)!.seq).padStart(20, '0')}`]);
    // Asked again with nothing new: the one there is the answer, and stays as it was.
    expect(await c.checkpoint()).toEqual(stack.at(-1));
    expect(await newMachine(dir)).toEqual(await dumpCatalog(c));
    // Eight in the stack: the next starts again over the whole one, with every change since it.
    await commits(c, 100, 1);
    const again = await c.checkpoint();
    expect(again.after).toBe(whole.seq);
    expect(again.keys).toBeGreaterThan(Math.max(...stack.slice(1).map((cp) => cp.keys)));
    expect(await c.compactLog({ minAgeMs: 0 })).toMatchObject({ through: again.seq });
    expect(await newMachine(dir)).toEqual(await dumpCatalog(c));
    expect(await c.verify()).toMatchObject({ ok: true });
    await c.close();
  });

  it('are whole again once the changes pass half the whole one, or an entry deleted keys', async () => {
    const dir = await tempDir();
    const c = await large(dir);
    const whole = await c.checkpoint();
    await c.transaction((tx) => tx.addDataFiles('main', 't', Array.from({ length: 800 }, (_, i) => file(`more/${i}.parquet`))));
    const over = await c.checkpoint();
    expect(over.after).toBe(whole.seq);
    // Another 800 files: the two together hold more than half the whole one's keys.
    await c.transaction((tx) => tx.addDataFiles('main', 't', Array.from({ length: 800 }, (_, i) => file(`again/${i}.parquet`))));
    expect((await c.checkpoint()).after).toBeNull();
    await commits(c, 0, 1);
    expect((await c.checkpoint()).after).not.toBeNull();
    // A dropped tag deletes its key: so does excision, whose checkpoint must let pruning take the older ones.
    await c.createTag('t1', 1);
    await c.dropTag('t1');
    expect((await c.checkpoint()).after).toBeNull();
    expect(await newMachine(dir)).toEqual(await dumpCatalog(c));
    await c.close();
  });

  it('keep what they are read over from pruning, and go with it once a whole one supersedes them', async () => {
    const dir = await tempDir();
    const { c, whole, first, second } = await stackOfThree(dir);
    expect([first.after, second.after]).toEqual([whole.seq, first.seq]);
    const pruned = await c.pruneCheckpoints({ keep: 1, minAgeMs: 0 });
    expect(pruned).toMatchObject({ kept: [whole.seq, first.seq, second.seq], deleted: [] });
    expect(await newMachine(dir)).toEqual(await dumpCatalog(c));
    // A whole checkpoint after a delete: the stack below it is superseded, every part of it.
    await c.createTag('t1', 1);
    await c.dropTag('t1');
    const next = await c.checkpoint();
    expect(next.after).toBeNull();
    expect(await c.pruneCheckpoints({ keep: 1, minAgeMs: 0 })).toMatchObject({ kept: [next.seq], deleted: [whole.seq, first.seq, second.seq] });
    expect(await checkpointDirs(dir)).toEqual([next.seq]);
    expect(await newMachine(dir)).toEqual(await dumpCatalog(c));
    await c.close();
  });

  it('are passed over when any checkpoint of their stack is damaged or gone, for an older one or the log', async () => {
    const dir = await tempDir();
    const { c, whole, first } = await stackOfThree(dir);
    await commits(c, 4, 1);
    const expected = await dumpCatalog(c);
    // A whole checkpoint's chunks are chunk-…, those of one after another delta-….
    const chunk = (seq: number) => path.join(dir, 'store', 'checkpoints', String(seq).padStart(20, '0'), seq === whole.seq ? 'chunk-000001' : 'delta-000001');
    for (const seq of [whole.seq, first.seq]) {
      const original = await flip(chunk(seq), 100, 0x10);
      expect(await newMachine(dir)).toEqual(expected);
      const report = await c.verify();
      expect(report.violations).toEqual([expect.objectContaining({ invariant: 'checkpoints-are-whole', object: `checkpoint ${seq}` })]);
      await writeFile(chunk(seq), original);
    }
    expect(await c.verify()).toMatchObject({ ok: true });
    // The manifest of the one in the middle gone: the newest is no longer complete, nor listed as such.
    const middle = path.join(dir, 'store', 'checkpoints', String(first.seq).padStart(20, '0'));
    const manifest = (await readdir(middle)).find((o) => o.startsWith('manifest'))!;
    await writeFile(path.join(middle, `${manifest}.kept`), await readFile(path.join(middle, manifest)));
    const { rm } = await import('node:fs/promises');
    await rm(path.join(middle, manifest));
    expect(await newMachine(dir)).toEqual(expected);
    expect((await c.pruneCheckpoints({ dryRun: true, keep: 1, minAgeMs: 0 })).kept).toEqual([whole.seq]);
    await c.close();
  });

  it('are not written over damage, and the log is not compacted into a stack that does not read whole', async () => {
    const dir = await tempDir();
    const c = await large(dir);
    const whole = await c.checkpoint();
    await commits(c, 0, 2);
    const over = await c.checkpoint();
    expect(over.after).toBe(whole.seq);
    const cpDir = (seq: number) => path.join(dir, 'store', 'checkpoints', String(seq).padStart(20, '0'));
    // A bit of the whole one's chunk flipped after it was written: its manifest still lists it complete.
    await flip(path.join(cpDir(whole.seq), 'chunk-000001'), 100, 0x01);
    // Compaction takes neither (the log still stands in for them), and a new machine reads the same catalog.
    expect(await c.compactLog({ minAgeMs: 0 })).toMatchObject({ through: null, entries: 0 });
    expect(await newMachine(dir)).toEqual(await dumpCatalog(c));
    // The next checkpoint, once a manifest it would be read over cannot be read, is whole.
    const manifest = path.join(cpDir(over.seq), (await readdir(cpDir(over.seq))).find((o) => o.startsWith('manifest'))!);
    await writeFile(manifest, Buffer.from((await readFile(manifest)).subarray(0, 9)));
    await commits(c, 2, 1);
    const next = await c.checkpoint();
    expect(next.after).toBeNull();
    expect(await c.compactLog({ minAgeMs: 0 })).toMatchObject({ through: next.seq });
    expect(await newMachine(dir)).toEqual(await dumpCatalog(c));
    await c.close();
  });

  it('are whole when a log entry since the one below cannot be read, or the log holds another history there', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir, checkpointEvery: 0, logLayout: 'objects' });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    await c.transaction((tx) => tx.addDataFiles('main', 't', Array.from({ length: 2500 }, (_, i) => file(`base/${i}.parquet`))));
    const whole = await c.checkpoint();
    await commits(c, 0, 2);
    // The entry after the checkpoint, which the index applied long ago, damaged in the store.
    const entry = path.join(dir, 'store', 'log', String(whole.seq + 1).padStart(20, '0'));
    const bytes = await flip(entry, -3, 0x04);
    expect((await c.checkpoint()).after).toBeNull();
    await writeFile(entry, bytes);
    await c.close();
    // A checkpoint whose txn is not its entry's (the log went on another way after it was taken).
    const other = await tempDir();
    const d = await large(other);
    const base = await d.checkpoint();
    await commits(d, 0, 1);
    const manifest = path.join(other, 'store', 'checkpoints', String(base.seq).padStart(20, '0'), 'manifest');
    const { checkedFrame, unframe } = await import('../../keys/framing.js');
    await writeFile(manifest, checkedFrame({ ...(unframe(await readFile(manifest)) as object), txn: 'another-history' }));
    expect((await d.checkpoint()).after).toBeNull();
    await d.close();
  });

  it('cut short at any store operation, or with its answer lost, leave a store a new machine reads the catalog from', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    // The fault: the at-th operation from here, or the at-th create of a checkpoint object from here.
    let failing: { at: number; after: boolean; writes: boolean } | undefined;
    let ops = 0;
    let creates = 0;
    let hit = false;
    const fault = (after: boolean) => (n: number, op: string, key: string) => {
      if (!after) ops = n;
      const create = op === 'putIfAbsent' && key.startsWith('checkpoints/');
      if (create && !after) creates++;
      if (failing === undefined || failing.after !== after || (failing.writes ? !create || creates !== failing.at : n !== failing.at)) return;
      hit = true;
      throw new Error(`injected: ${after ? 'the answer of' : 'before'} ${op} ${key}`);
    };
    const store = new FaultyStore(new DirectoryStore(path.join(dir, 'store')), { beforeOperation: fault(false), afterOperation: fault(true) });
    const c = await openCatalog({ dir, store, checkpointEvery: 0, logLayout: 'objects' });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    await c.transaction((tx) => tx.addDataFiles('main', 't', Array.from({ length: 2500 }, (_, i) => file(`base/${i}.parquet`))));
    await c.checkpoint();
    const failed: string[] = [];
    let made = 0;
    for (const writes of [false, true]) {
      for (const after of [false, true]) {
        // The k-th step of the k-th try of one checkpoint fails (a try finds what the ones before left),
        // until a try has fewer such steps and completes.
        await commits(c, 100 * made++, 2);
        for (let k = 1; k < 100; k++) {
          hit = false;
          failing = { at: (writes ? creates : ops) + k, after, writes };
          const written = await c.checkpoint().catch((e: Error) => void failed.push(e.message));
          failing = undefined;
          const fresh = await newMachineOpen(dir);
          expect(await newestOf(fresh)).toEqual(await newestOf(c));
          await fresh.close();
          if (!hit || written !== undefined) {
            expect(written).toMatchObject({ after: expect.any(Number) });
            break;
          }
        }
      }
    }
    // Faults met every kind of step of one: the look for one there, the stack below, the chunk, the manifest.
    for (const step of ['list checkpoints/', 'get checkpoints/', 'putIfAbsent checkpoints/', '/manifest-after-']) expect(failed.join('\n')).toContain(step);
    expect(await c.verify()).toMatchObject({ ok: true });
    await c.close();
  });

  it('take a fraction of the bytes whole ones take', async () => {
    const dir = await tempDir();
    const c = await large(dir);
    const sizes: number[] = [];
    for (let i = 0; i < 6; i++) {
      await commits(c, i * 5, 5);
      const cp = await c.checkpoint();
      let bytes = 0;
      for (const o of await objectsOf(dir, cp.seq)) bytes += (await stat(path.join(dir, 'store', 'checkpoints', String(cp.seq).padStart(20, '0'), o))).size;
      sizes.push(bytes);
    }
    // The first is whole; each after it holds its five commits (and nothing of the 1,200 files).
    for (const b of sizes.slice(1)) expect(b).toBeLessThan(sizes[0]! / 20);
    await c.close();
  });
});
