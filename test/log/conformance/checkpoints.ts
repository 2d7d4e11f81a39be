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
