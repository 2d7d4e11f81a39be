import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCompactOptions, planLogCompaction } from '../../gc/compact-log.js';
import { isStrataError } from '../../src/index.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';
import { kvSeq } from '../../keys/ids.js';
import { SEGMENTS_DIR } from '../../src/log/segment-file.js';
import { layoutOf, withStoreLog } from '../support/store-log.js';

const HOUR = 3600 * 1000;

/** Every byte the store holds under `prefix`, file by file. */
async function storeFiles(root: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(await readFile(path.join(e.parentPath, e.name)));
  }
  return out;
}

describe('log compaction', () => {
  it('stubs the entries an old-enough checkpoint covers: excised rows leave the log, new machines still bootstrap', async () => {
    const dir = await tempDir();
    const clock = { later: 0 };
    const c = await openCatalog({ dir, clock: () => Date.now() + clock.later, checkpointEvery: 0 });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'customer-4711/orders.parquet', recordCount: 1, fileSizeBytes: 1 }));
    const r = await c.reader();
    const [secret] = await r.dataFiles('main', 't');
    await r.close();
    const { snapshot } = await c.transaction((tx) => tx.removeDataFile('main', 't', secret!.id));
    await c.advanceRetainFrom({ snapshot: snapshot! });
    await c.excise();
    const { seq: k } = await c.checkpoint();
    await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'kept.parquet', recordCount: 1, fileSizeBytes: 1 }));
    // Whichever layout holds the log: its objects, or its segment files.
    const logDir = path.join(dir, 'store', (await layoutOf(path.join(dir, 'store'))) === 'objects' ? 'log' : SEGMENTS_DIR);
    const mentions = async () => (await storeFiles(logDir)).filter((b) => b.includes('customer-4711')).length;
    expect(await mentions()).toBeGreaterThan(0);

    expect(await c.compactLog()).toEqual({ dryRun: false, through: null, entries: 0 }); // the checkpoint is too young
    clock.later = 2 * HOUR;
    expect(await c.compactLog({ dryRun: true })).toEqual({ dryRun: true, through: k, entries: k - 1 });
    expect(await mentions()).toBeGreaterThan(0);
    expect(await c.compactLog()).toEqual({ dryRun: false, through: k, entries: k - 1 });
    expect(await mentions()).toBe(0);
    expect(await c.compactLog()).toEqual({ dryRun: false, through: null, entries: 0 }); // nothing new to do
    // Every number still taken, entry 1 and the tail as they were.
    const kinds = await withStoreLog(path.join(dir, 'store'), async (log) => {
      const out: string[] = [];
      for await (const e of log.readAfter(kvSeq(0))) out.push(e.kind);
      return out;
    });
    expect(kinds).toEqual(['init', ...Array.from({ length: k - 1 }, () => 'stub'), 'commit']);

    const fresh = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    expect(await dumpCatalog(fresh)).toEqual(await dumpCatalog(c));
  });

  it('each run starts after the last: one mark of how far compaction got stays', async () => {
    const dir = await tempDir();
    const clock = { later: 0 };
    const c = await openCatalog({ dir, clock: () => Date.now() + clock.later, checkpointEvery: 0 });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const marks = async () => (await readdir(path.join(dir, 'store', 'compacted'))).map(Number);
    for (let round = 1; round <= 3; round++) {
      await c.transaction((tx) => tx.addDataFile('main', 't', { path: `f${round}`, recordCount: 1, fileSizeBytes: 1 }));
      const { seq } = await c.checkpoint();
      clock.later += 2 * HOUR;
      const report = await c.compactLog();
      expect(report.through).toBe(seq);
      expect(report.entries).toBe(round === 1 ? seq - 1 : 1); // only the round's commit is new since the last run
      expect(await marks()).toEqual([seq]);
    }
  });

  it('a writer whose index is older than the stubs rebuilds it from the checkpoint and commits after the newest entry', async () => {
    const store = { path: path.join(await tempDir(), 'store') };
    const clock = { later: 0 };
    const a = await openCatalog({ dir: await tempDir(), store, clock: () => Date.now() + clock.later, checkpointEvery: 0 });
    await a.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const stale = await openCatalog({ dir: await tempDir(), store }); // its index stops here
    const before = await stale.reader();
    for (let i = 0; i < 5; i++) await a.transaction((tx) => tx.addDataFile('main', 't', { path: `a${i}`, recordCount: 1, fileSizeBytes: 1 }));
    await a.transaction((tx) => tx.renameTable('main', 't', 'u'));
    const { seq: k } = await a.checkpoint();
    await a.transaction((tx) => tx.addDataFile('main', 'u', { path: 'tail', recordCount: 1, fileSizeBytes: 1 }));
    clock.later = 2 * HOUR;
    expect((await a.compactLog()).through).toBe(k);

    // Its next entry (3) is a stub now: it loses that race, finds the stub, rebuilds, and commits at the head.
    const { snapshot } = await stale.transaction((tx) => tx.addDataFile('main', 'u', { path: 'stale', recordCount: 1, fileSizeBytes: 1 }));
    await a.refresh();
    expect(snapshot).toBe((await a.snapshots()).at(-1)!.id);
    expect(await dumpCatalog(stale)).toEqual(await dumpCatalog(a));
    const r = await a.reader();
    expect((await r.dataFiles('main', 'u')).map((f) => f.path)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'tail', 'stale']);
    await r.close();
    // A reader opened before the rebuild still reads the state it was opened on.
    expect((await before.tables('main')).map((t) => t.name)).toEqual(['t']);
    expect(await before.dataFiles('main', 't')).toEqual([]);
    await before.close();
  });

  it('refuses bad options and, on a read-only catalog, anything but a dry run', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    const err = await c.compactLog({ minAgeMs: -1 }).catch((e: unknown) => e);
    expect(isStrataError(err, 'INVALID_ARGUMENT')).toBe(true);
    expect((err as Error).message).toContain('minAgeMs');
    const ro = await openCatalog({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
    await expect(ro.compactLog()).rejects.toSatisfy((e) => isStrataError(e, 'READ_ONLY'));
    expect(await ro.compactLog({ dryRun: true })).toEqual({ dryRun: true, through: null, entries: 0 });
  });
});

describe('what a compaction run plans', () => {
  it('defaults to an hour and a real run; refuses an option it does not have, naming the ones it has', () => {
    expect(checkCompactOptions(undefined)).toEqual({ minAgeMs: HOUR, dryRun: false });
    expect(() => checkCompactOptions({ minAge: 0 } as never)).toThrow('compactLog() has no option "minAge" (did you mean "minAgeMs"?); its options are minAgeMs, dryRun');
    expect(() => checkCompactOptions({ dryRun: 0 } as never)).toThrow('dryRun must be a boolean');
    expect(() => checkCompactOptions({ minAgeMs: -1 })).toThrow('minAgeMs must be a whole number of ms >= 0, got -1');
  });

  it('takes a checkpoint from the millisecond it is minAgeMs old', () => {
    const at = (lastModified: number) => [{ seq: kvSeq(10), complete: true, after: null, keys: [], lastModified }];
    const opts = { minAgeMs: HOUR, dryRun: false };
    expect(planLogCompaction(at(5 * HOUR - HOUR), kvSeq(1), 5 * HOUR, opts)).toEqual({ from: 2, through: 10 });
    expect(planLogCompaction(at(5 * HOUR - HOUR + 1), kvSeq(1), 5 * HOUR, opts)).toBeUndefined();
  });
});
