import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/index.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';

const HOUR = 3600 * 1000;

/** A catalog whose clock runs `later` ms ahead of the store's, with three checkpoints and a log tail. */
async function withCheckpoints() {
  const dir = await tempDir();
  const clock = { later: 0 };
  const c = await openCatalog({ dir, clock: () => Date.now() + clock.later, checkpointEvery: 0 });
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
  const seqs: number[] = [];
  for (let i = 0; i < 3; i++) {
    await c.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 }));
    seqs.push((await c.checkpoint()).seq);
  }
  await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'tail', recordCount: 1, fileSizeBytes: 1 }));
  const onDisk = async () => (await readdir(path.join(dir, 'store', 'checkpoints'))).map(Number);
  const manifest = (seq: number) => path.join(dir, 'store', 'checkpoints', String(seq).padStart(20, '0'), 'manifest');
  return { dir, c, clock, seqs, onDisk, manifest };
}

describe('checkpoint pruning', () => {
  it('keeps the newest complete checkpoints and deletes one superseded for minAgeMs; new machines still bootstrap', async () => {
    const { dir, c, clock, seqs, onDisk } = await withCheckpoints();
    const [cp1, cp2, cp3] = seqs;
    // Each newer checkpoint was written a moment ago: a machine may be bootstrapping from the older ones.
    expect(await c.pruneCheckpoints()).toEqual({ dryRun: false, kept: seqs, deleted: [], objects: 0 });
    clock.later = 2 * HOUR;
    const dry = await c.pruneCheckpoints({ dryRun: true });
    expect(dry).toEqual({ dryRun: true, kept: [cp2, cp3], deleted: [cp1], objects: 2 }); // one chunk and the manifest
    expect(await onDisk()).toEqual(seqs);
    expect(await c.pruneCheckpoints()).toEqual({ dryRun: false, kept: [cp2, cp3], deleted: [cp1], objects: 2 });
    expect(await onDisk()).toEqual([cp2, cp3]);
    expect((await c.pruneCheckpoints({ keep: 1 })).deleted).toEqual([cp2]);
    expect(await onDisk()).toEqual([cp3]);
    const fresh = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    expect(await dumpCatalog(fresh)).toEqual(await dumpCatalog(c));
  });

  it('deletes an incomplete checkpoint only once it has been left alone for minAgeMs', async () => {
    const { c, clock, seqs, onDisk, manifest } = await withCheckpoints();
    const [cp1, cp2, cp3] = seqs;
    await rm(manifest(cp3!)); // as if its writer were still at work, or had died before the manifest
    expect((await c.pruneCheckpoints({ keep: 1, minAgeMs: HOUR })).deleted).toEqual([]);
    clock.later = 2 * HOUR;
    const report = await c.pruneCheckpoints({ keep: 1, minAgeMs: HOUR });
    expect(report.deleted).toEqual([cp1, cp3]);
    expect(report.kept).toEqual([cp2]);
    expect(await onDisk()).toEqual([cp2]);
    expect(existsSync(manifest(cp2!))).toBe(true);
  });

  it('refuses bad options and, on a read-only catalog, anything but a dry run', async () => {
    const { dir, c, seqs } = await withCheckpoints();
    for (const bad of [{ keep: 0 }, { keep: 1.5 }, { minAgeMs: -1 }, { dryRun: 'yes' }]) {
      const err = await c.pruneCheckpoints(bad as never).catch((e: unknown) => e);
      expect(isStrataError(err, 'INVALID_ARGUMENT')).toBe(true);
      expect((err as Error).message).toContain(Object.keys(bad)[0]);
    }
    const ro = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    await expect(ro.pruneCheckpoints()).rejects.toSatisfy((e) => isStrataError(e, 'READ_ONLY'));
    expect((await ro.pruneCheckpoints({ dryRun: true })).kept).toEqual(seqs);
  });
});
