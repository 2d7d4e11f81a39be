import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../../keys/ids.js';
import type { CheckpointManifest } from '../../../src/log/checkpoint.js';
import { all, batches, hex, type LogSuite, newest, NOW, pairs, readCheckpoint } from './common.js';

export function checkpoints({ make }: LogSuite): void {
  describe('checkpoints', () => {
    it('an empty log has none', async () => {
      const h = await make();
      expect(await h.log.checkpoints.list()).toEqual([]);
      expect(await newest(h.log.checkpoints, all)).toBeUndefined();
    });

    it('a written checkpoint is listed complete, is the newest, and reads back its pairs in order, byte for byte', async () => {
      const h = await make();
      // Past 4 MiB, so the pairs cannot all travel in one piece in a layout that splits them.
      const written = pairs(3000);
      const manifest = await h.log.checkpoints.write(kvSeq(40), 'txn-40', batches(written, 250), NOW);
      expect(manifest).toMatchObject({ seq: 40, keys: 3000, createdAt: NOW });
      const other = await h.reopen();
      expect((await other.checkpoints.list()).map((c) => ({ seq: c.seq, complete: c.complete }))).toEqual([{ seq: 40, complete: true }]);
      const found = await newest(other.checkpoints, all);
      expect(found).toEqual(manifest);
      expect(found!.txn).toBe('txn-40');
      expect(await readCheckpoint(other, found!)).toEqual(written.map(([k, v]) => [hex(k), hex(v)]));
    });

    it('an incomplete checkpoint is listed as such and is never the newest', async () => {
      const h = await make();
      const older = await h.log.checkpoints.write(kvSeq(10), 'txn-10', batches(pairs(3), 2), NOW);
      await h.log.checkpoints.write(kvSeq(20), 'txn-20', batches(pairs(3), 2), NOW);
      await h.interruptCheckpoint(kvSeq(20));
      expect((await h.log.checkpoints.list()).map((c) => ({ seq: c.seq, complete: c.complete }))).toEqual([
        { seq: 10, complete: true },
        { seq: 20, complete: false },
      ]);
      expect(await newest(h.log.checkpoints, all)).toEqual(older);
      expect(await newest(h.log.checkpoints, async (seq) => seq >= 20)).toBeUndefined();
    });

    it('newest skips the checkpoints the predicate refuses', async () => {
      const h = await make();
      const written = new Map<number, CheckpointManifest>();
      for (const seq of [10, 20, 30]) written.set(seq, await h.log.checkpoints.write(kvSeq(seq), `txn-${seq}`, batches(pairs(3), 2), NOW + seq));
      expect(await newest(h.log.checkpoints, all)).toEqual(written.get(30));
      expect(await newest(h.log.checkpoints, async (seq) => seq <= 20)).toEqual(written.get(20));
      expect(await newest(h.log.checkpoints, async (seq) => seq !== 20 && seq !== 30)).toEqual(written.get(10));
      expect(await newest(h.log.checkpoints, async () => false)).toBeUndefined();
    });

    it('one after another reads over it: its values win, its deleted keys are gone, across chunks of both', async () => {
      const h = await make();
      // Both past 4 MiB: each is read a chunk at a time while the other's chunks are read.
      const whole = pairs(3000);
      await h.log.checkpoints.write(kvSeq(10), 'txn-10', batches(whole, 250), NOW);
      // Of the whole one's keys every fifth deleted and every fifth other given a new value; new keys among
      // and after them. In key order, as a checkpoint's pairs are.
      const fresh = pairs(6000);
      const changes: [Uint8Array, Uint8Array | null][] = [];
      for (let i = 0; i < 6000; i++) {
        if (i < 3000 && i % 5 === 0) changes.push([whole[i]![0], null]);
        else if (i < 3000 && i % 5 === 1) changes.push([whole[i]![0], fresh[(i * 7) % 6000]![1]]);
        else if (i >= 3000 && i % 3 === 0) changes.push(fresh[i]!);
      }
      expect(changes.filter(([, v]) => v === null).length).toBe(600);
      await h.log.checkpoints.write(kvSeq(20), 'txn-20', batches(changes, 300), NOW, kvSeq(10));
      const expected = new Map(whole.map(([k, v]) => [hex(k), hex(v)]));
      for (const [k, v] of changes) {
        if (v === null) expected.delete(hex(k));
        else expected.set(hex(k), hex(v));
      }
      const other = await h.reopen();
      expect((await other.checkpoints.list()).map((c) => ({ seq: c.seq, complete: c.complete, after: c.after }))).toEqual([
        { seq: 10, complete: true, after: null },
        { seq: 20, complete: true, after: 10 },
      ]);
      const top = await newest(other.checkpoints, all);
      expect(top).toMatchObject({ seq: 20, after: 10, keys: changes.length });
      expect(await readCheckpoint(other, top!)).toEqual([...expected].sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))));
      // One that changed nothing reads as the one it is after.
      const none = await h.log.checkpoints.write(kvSeq(15), 'txn-15', batches([], 1), NOW, kvSeq(10));
      expect(none).toMatchObject({ chunks: 0, keys: 0, after: 10 });
      expect(await readCheckpoint(other, none)).toEqual(whole.map(([k, v]) => [hex(k), hex(v)]));
      // Without the one it is after, it is not complete, and nothing reads it as the catalog.
      await h.interruptCheckpoint(kvSeq(10));
      expect((await other.checkpoints.list()).map((c) => c.complete)).toEqual([false, false, false]);
      expect(await newest(other.checkpoints, all)).toBeUndefined();
      // A whole checkpoint holds no deleted key.
      await expect(h.log.checkpoints.write(kvSeq(30), 'txn-30', batches([[whole[0]![0], null]], 1), NOW)).rejects.toThrow('a whole checkpoint holds no deleted keys');
    });

    it('delete removes one checkpoint, complete or not, and leaves the others readable', async () => {
      const h = await make();
      const contents = pairs(5);
      const kept = await h.log.checkpoints.write(kvSeq(10), 'txn-10', batches(contents, 2), NOW);
      for (const seq of [20, 30]) await h.log.checkpoints.write(kvSeq(seq), `txn-${seq}`, batches(pairs(3), 2), NOW);
      await h.interruptCheckpoint(kvSeq(30));
      const [, complete, incomplete] = await h.log.checkpoints.list();
      await h.log.checkpoints.delete(complete!);
      await h.log.checkpoints.delete(incomplete!);
      expect((await h.log.checkpoints.list()).map((c) => c.seq)).toEqual([10]);
      expect(await newest(h.log.checkpoints, all)).toEqual(kept);
      expect(await readCheckpoint(h.log, kept)).toEqual(contents.map(([k, v]) => [hex(k), hex(v)]));
    });
  });
}
