// Excision at its edges: its options (refused word for word), a dry run planned at another retain-from, batches
// of exactly batchSize (what onProgress reports after each), a path named by two file rows, a commit's files
// sharing one manifest (of one part, and of several), the schedule naming the entry that wrote it, and a job
// that is finished writing nothing more.
import { describe, expect, it } from 'vitest';
import { openIndex, refusal } from './gc-helpers.js';
import { checkExciseOptions, nextStep } from '../../gc/excise.js';
import { kvSeq } from '../../keys/ids.js';
import { ALL_SCHEDULED, decodeScheduled } from '../../keys/retention.js';
import { MANIFEST_PART_FILES } from '../../keys/data-files.js';
import { type Catalog, isStrataError } from '../../src/index.js';
import { openCatalog, steppingClock, tempDir } from '../helpers.js';



/** The schedule rows of a closed catalog's index. */
async function schedule(dir: string) {
  const kv = await openIndex(dir);
  const view = await kv.readView();
  try {
    const out = [];
    for await (const [k, v] of view.scan(ALL_SCHEDULED)) out.push(decodeScheduled(k, v));
    return out;
  } finally {
    await view.close();
  }
}

/** Files f0..f(n-1) added one commit each, then all removed in one: n versions end at the last snapshot. */
async function filesAddedAndRemoved(c: Catalog, n: number): Promise<number> {
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
  for (let i = 0; i < n; i++) await c.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 }));
  const r = await c.reader();
  const files = await r.dataFiles('main', 't');
  await r.close();
  const { snapshot } = await c.transaction(async (tx) => {
    for (const f of files) await tx.removeDataFile('main', 't', f.id);
  });
  return snapshot!;
}

describe('checkExciseOptions', () => {
  it('defaults to a real run of 1,000 a batch, and passes on what was given, nothing else', () => {
    expect(checkExciseOptions(undefined)).toStrictEqual({ dryRun: false, batchSize: 1000 });
    const onProgress = () => {};
    expect(checkExciseOptions({ dryRun: true, batchSize: 7, onProgress, retainFrom: 3 })).toStrictEqual({ dryRun: true, batchSize: 7, onProgress, retainFrom: 3 });
    expect(checkExciseOptions({ retainFrom: 0, dryRun: true })).toStrictEqual({ dryRun: true, batchSize: 1000, retainFrom: 0 });
  });

  it('refuses each bad option, naming it and what it takes', () => {
    const bad = (o: object) => {
      const err = refusal(() => checkExciseOptions(o as never));
      expect(err.code).toBe('INVALID_ARGUMENT');
      return err.message;
    };
    expect(bad({ dryrun: true })).toBe('excise() has no option "dryrun" (did you mean "dryRun"?); its options are dryRun, batchSize, onProgress, retainFrom');
    expect(bad({ batchSize: 0 })).toBe('batchSize must be a positive integer, got 0');
    expect(bad({ dryRun: 'yes' })).toBe('dryRun must be a boolean');
    expect(bad({ onProgress: 'log' })).toBe('onProgress must be a function');
    expect(bad({ retainFrom: 3 })).toBe('retainFrom plans a dry run only; move retain-from with advanceRetainFrom() first');
    expect(bad({ retainFrom: 3, dryRun: false })).toBe('retainFrom plans a dry run only; move retain-from with advanceRetainFrom() first');
  });
});

describe('a dry run at another retain-from', () => {
  it('plans from the current one through the newest snapshot, and refuses any other', async () => {
    const c = await openCatalog({ clock: steppingClock() });
    const removed = await filesAddedAndRemoved(c, 3); // snapshots 0..5
    await c.advanceRetainFrom({ snapshot: 2 });
    expect(await c.excise({ dryRun: true })).toEqual({ dryRun: true, job: null, retainFrom: 2, versions: 0, snapshots: 2, files: 0 });
    expect(await c.excise({ dryRun: true, retainFrom: 2 })).toMatchObject({ retainFrom: 2, snapshots: 2 });
    expect(await c.excise({ dryRun: true, retainFrom: removed })).toEqual({ dryRun: true, job: null, retainFrom: removed, versions: 3, snapshots: removed, files: 3 });
    for (const at of [1, removed + 1, 2.5]) {
      const err = await c.excise({ dryRun: true, retainFrom: at }).catch((e: unknown) => e);
      expect(isStrataError(err, 'INVALID_ARGUMENT')).toBe(true);
      expect((err as Error).message).toBe(`a planned retain-from must lie between the current one (2) and the newest snapshot (${removed}); got ${at}`);
    }
  });
});

describe('batches', () => {
  it('hold exactly batchSize versions and snapshots each; onProgress gets the running counts after each, a dry run the same sums', async () => {
    const c = await openCatalog({ clock: steppingClock() });
    const removed = await filesAddedAndRemoved(c, 3); // 3 versions ending at 5; snapshots 0..4 below it
    await c.advanceRetainFrom({ snapshot: removed });
    const plan = await c.excise({ dryRun: true, batchSize: 1 });
    expect(plan).toMatchObject({ versions: 3, snapshots: 5, files: 3 });
    const progress: string[] = [];
    const report = await c.excise({ batchSize: 2, onProgress: (p) => progress.push(`${p.versions}v ${p.snapshots}s ${p.files}f`) });
    expect(report).toMatchObject({ versions: 3, snapshots: 5, files: 3 });
    // Versions first, then snapshot records; a batch closes at batchSize and its files are counted with it.
    expect(progress).toEqual(['2v 0s 2f', '3v 1s 3f', '3v 3s 3f', '3v 5s 3f', '3v 5s 3f']);
  });
});

describe('what excision takes with a version', () => {
  it('a path two file rows named is scheduled once both are gone, and not again while it waits; the schedule names the entry that wrote it', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir, clock: steppingClock() });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
    const readdAndRemove = async () => {
      await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'p.parquet', recordCount: 1, fileSizeBytes: 1 }));
      const r = await c.reader();
      const [file] = await r.dataFiles('main', 't');
      await r.close();
      return (await c.transaction((tx) => tx.removeDataFile('main', 't', file!.id))).snapshot!;
    };
    await readdAndRemove();
    const second = await readdAndRemove();
    await c.advanceRetainFrom({ snapshot: second - 2 }); // the first row's version only
    expect(await c.excise()).toMatchObject({ versions: 1, files: 0 }); // the second still names the path
    await c.advanceRetainFrom({ snapshot: second });
    const job = await c.excise();
    expect(job).toMatchObject({ versions: 1, files: 1 });
    // The path named again and let go again before reclamation came: it waits on its first schedule.
    const third = await readdAndRemove();
    await c.advanceRetainFrom({ snapshot: third });
    expect(await c.excise()).toMatchObject({ versions: 1, files: 0 });
    await c.close();
    expect(await schedule(dir)).toEqual([{ path: 'p.parquet', scheduledAt: expect.any(Number), seq: kvSeq(job.job!) }]);
  });

  it('both rows a path had, excised in one batch, schedule it', async () => {
    const c = await openCatalog({ clock: steppingClock() });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]));
    let last = 0;
    for (let i = 0; i < 2; i++) {
      await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'p.parquet', recordCount: 1, fileSizeBytes: 1 }));
      const r = await c.reader();
      const [file] = await r.dataFiles('main', 't');
      await r.close();
      last = (await c.transaction((tx) => tx.removeDataFile('main', 't', file!.id))).snapshot!;
    }
    await c.advanceRetainFrom({ snapshot: last });
    expect(await c.excise()).toMatchObject({ versions: 2, files: 1 });
  });

  it.each([
    ['of one part', 3, [0, 2]],
    ['of several parts', MANIFEST_PART_FILES + 3, [1, MANIFEST_PART_FILES + 1]],
  ])('files one commit added (a manifest %s) keep listing right when some of them are excised', { timeout: 60_000 }, async (_, n, gone) => {
    const c = await openCatalog({ clock: steppingClock() });
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'i', type: 'int32' }]);
      for (let i = 0; i < n; i++) await tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 });
    });
    const r = await c.reader();
    const files = await r.dataFiles('main', 't');
    await r.close();
    const { snapshot } = await c.transaction(async (tx) => {
      for (const i of gone) await tx.removeDataFile('main', 't', files[i]!.id);
    });
    const kept = files.filter((_f, i) => !gone.includes(i)).map((f) => f.path);
    await c.advanceRetainFrom({ snapshot: snapshot! });
    expect(await c.excise()).toMatchObject({ versions: gone.length, files: gone.length });
    const after = await c.reader();
    expect((await after.dataFiles('main', 't')).map((f) => f.path)).toEqual(kept);
    await after.close();
    expect((await c.verify()).violations).toEqual([]);
  });
});

describe('the column id floor', () => {
  it('already past the id a later excision takes stays as it is', async () => {
    const c = await openCatalog({ clock: steppingClock() });
    await c.transaction((tx) =>
      tx.createTable('main', 't', [{ name: 'a', type: 'int32' }, { name: 'b', type: 'int32' }, { name: 'c', type: 'int32' }]),
    );
    const dropAndExcise = async (column: string) => {
      const { snapshot } = await c.transaction((tx) => tx.dropColumn('main', 't', column));
      await c.advanceRetainFrom({ snapshot: snapshot! });
      expect((await c.excise()).versions).toBeGreaterThan(0);
    };
    await dropAndExcise('c');
    await dropAndExcise('b');
    let id: number | undefined;
    await c.transaction(async (tx) => {
      id = await tx.addColumn('main', 't', { name: 'd', type: 'int32' });
    });
    expect(id).toBe(4);
    expect((await c.verify()).violations).toEqual([]);
  });
});

describe('a finished job', () => {
  it('writes nothing more when asked for its next step, whoever finished it', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir, clock: steppingClock() });
    await c.advanceRetainFrom({ snapshot: await filesAddedAndRemoved(c, 2) });
    await c.close();
    const kv = await openIndex(dir);
    let id: number | undefined;
    for (let i = 0; ; i++) {
      const view = await kv.readView();
      const step = await nextStep(view, id, 'gc', 1000, 1);
      await view.close();
      expect(i).toBeLessThan(20);
      id = step.job.id;
      await kv.apply(kvSeq(view.seq + 1), `txn-${i}`, step.mutations);
      if (step.job.row.finishedAt !== null) break;
    }
    const view = await kv.readView();
    try {
      const again = await nextStep(view, id, 'gc', 2000, 1);
      expect(again.mutations).toEqual([]);
      expect(again.job).toMatchObject({ id, row: { finishedAt: 1000 } });
    } finally {
      await view.close();
    }
  });
});
