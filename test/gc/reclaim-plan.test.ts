// What a reclamation run plans, at its edges: its options (refused word for word, defaults of 2 and 7 days),
// an orphan sweep past one multi-get's worth of candidates, a scheduled path that is never an orphan, and the
// object some stores list for the data path itself (an S3 folder marker), which is no file of the catalog.
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openIndex, refusal } from './gc-helpers.js';
import { checkReclaimOptions, planReclaim } from '../../gc/reclaim.js';
import { kvSeq } from '../../keys/ids.js';
import { schedule } from '../../keys/retention.js';
import type { ObjectInfo, ObjectStore } from '../../src/store/object-store.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';

const DAY = 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 0, 1);



describe('checkReclaimOptions', () => {
  it('defaults to a real run, a grace of 2 days, no orphans and an orphan age of 7 days; passes on what was given', () => {
    expect(checkReclaimOptions(undefined)).toStrictEqual({ graceMs: 2 * DAY, dryRun: false, orphans: false, minAgeMs: 7 * DAY });
    const onProgress = () => {};
    expect(checkReclaimOptions({ graceMs: 0, dryRun: true, orphans: true, minAgeMs: 5, onProgress })).toStrictEqual({
      onProgress,
      graceMs: 0,
      dryRun: true,
      orphans: true,
      minAgeMs: 5,
    });
  });

  it('refuses each bad option, naming it and what it takes', () => {
    const bad = (o: object) => {
      const err = refusal(() => checkReclaimOptions(o as never));
      expect(err.code).toBe('INVALID_ARGUMENT');
      return err.message;
    };
    expect(bad({ grace: 0 })).toBe('reclaimFiles() has no option "grace"; its options are graceMs, dryRun, orphans, minAgeMs, onProgress');
    expect(bad({ graceMs: -1 })).toBe('graceMs must be a whole number of ms >= 0, got -1');
    expect(bad({ minAgeMs: 1.5 })).toBe('minAgeMs must be a whole number of ms >= 0, got 1.5');
    expect(bad({ dryRun: 1 })).toBe('dryRun must be a boolean');
    expect(bad({ orphans: 'yes' })).toBe('orphans must be a boolean');
    expect(bad({ onProgress: 1 })).toBe('onProgress must be a function');
  });
});

describe('planReclaim', () => {
  async function storeWith(paths: string[], mtime: number): Promise<DirectoryStore> {
    const root = path.join(await tempDir(), 'store');
    await mkdir(path.join(root, 'data'), { recursive: true });
    for (const p of paths) {
      const file = path.join(root, 'data', p);
      await writeFile(file, p);
      await utimes(file, new Date(mtime), new Date(mtime));
    }
    return new DirectoryStore(root);
  }

  it('sweeps every unnamed old object however many, never a scheduled path nor the data path itself', { timeout: 60_000 }, async () => {
    const paths = Array.from({ length: 1003 }, (_, i) => `o${String(i).padStart(4, '0')}`);
    const dir = await storeWith([...paths, 'waiting'], NOW - DAY);
    // An S3 bucket may hold an empty object named like the folder: it is listed with the rest.
    const store: ObjectStore = Object.assign(Object.create(dir) as DirectoryStore, {
      async *list(prefix: string): AsyncIterable<ObjectInfo> {
        yield { key: prefix, lastModified: NOW - DAY, size: 0 };
        yield* dir.list(prefix);
      },
    });
    const kv = await openIndex(await tempDir());
    await kv.apply(kvSeq(1), 'txn-1', [schedule('waiting', NOW - 1000, kvSeq(1))]);
    const view = await kv.readView();
    try {
      const plan = await planReclaim(view, store, 'data/', NOW, { graceMs: DAY, dryRun: true, orphans: true, minAgeMs: 1000 });
      expect(plan).toEqual({ due: [], waiting: ['waiting'], named: [], orphans: paths, sweepBefore: NOW - 1000 });
      // Not asked for, orphans are not even looked for.
      const without = await planReclaim(view, store, 'data/', NOW, { graceMs: DAY, dryRun: true, orphans: false, minAgeMs: 1000 });
      expect(without).toEqual({ due: [], waiting: ['waiting'], named: [], orphans: [], sweepBefore: undefined });
    } finally {
      await view.close();
    }
  });
});
