// Which objects a reclamation run deletes is decided in gc/ (reclaim.ts `deletions`, by protection.ts
// `isObjectLetGo`), and the deleting code (src/commit/reclaim-objects.ts) deletes exactly that: a due object the
// store modified after the log entry that scheduled it was written is an engine's new file, never deleted.
import { existsSync } from 'node:fs';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deletions, type DueObject, unschedule } from '../../gc/reclaim.js';
import { unschedule as unscheduled } from '../../keys/retention.js';
import { kvSeq } from '../../keys/ids.js';
import { deleteObjects } from '../../src/commit/reclaim-objects.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { CountingStore } from '../store/doubles/counting-store.js';
import { tempDir } from '../helpers.js';

const time = fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined });

describe('deletions: what gc/ lets a run delete', () => {
  it('skips exactly the due objects modified after their scheduling entry was written, and names those the store no longer holds; the rest go, orphans after them', () => {
    const due = fc.uniqueArray(fc.record({ path: fc.string({ minLength: 1 }), scheduledAt: time, lastModified: time }), { selector: (d) => d.path, maxLength: 20 });
    fc.assert(
      fc.property(due, fc.array(fc.constantFrom('o1', 'o2'), { maxLength: 3 }), (objects: DueObject[], orphans) => {
        const rewritten = (d: DueObject) => d.scheduledAt !== undefined && d.lastModified !== undefined && d.lastModified > d.scheduledAt;
        const gone = (d: DueObject) => d.lastModified === undefined;
        expect(deletions(objects, orphans)).toEqual({
          go: [...objects.filter((d) => !rewritten(d) && !gone(d)).map((d) => d.path), ...orphans],
          skipped: objects.filter(rewritten).map((d) => d.path),
          gone: objects.filter(gone).map((d) => d.path),
        });
      }),
      { numRuns: 500 },
    );
  });

  it('at the boundary: modified in the millisecond its entry was written is still the catalog\'s; an unknown entry time never protects; no object is gone, not deleted', () => {
    expect(deletions([
      { path: 'later', scheduledAt: 1000, lastModified: 1001 },
      { path: 'same', scheduledAt: 1000, lastModified: 1000 },
      { path: 'earlier', scheduledAt: 1000, lastModified: 999 },
      { path: 'no-entry', scheduledAt: undefined, lastModified: 5000 },
      { path: 'gone', scheduledAt: 1000, lastModified: undefined },
    ], [])).toEqual({ go: ['same', 'earlier', 'no-entry'], skipped: ['later'], gone: ['gone'] });
  });
});

describe('what leaves the schedule', () => {
  it('a path deleted, one already gone, one an engine wrote again and one a row names again; not one that failed', () => {
    const settled = unschedule({ named: ['named.parquet'] }, { deleted: ['deleted.parquet'], gone: ['gone.parquet'], skipped: ['skipped.parquet'] });
    expect(settled).toEqual(['deleted.parquet', 'gone.parquet', 'skipped.parquet', 'named.parquet'].map(unscheduled));
  });
});

describe('the deleting code does what gc/ decided', () => {
  async function storeWith(files: Record<string, number>): Promise<{ root: string; store: DirectoryStore }> {
    const root = path.join(await tempDir(), 'store');
    for (const [p, mtime] of Object.entries(files)) {
      const file = path.join(root, 'data', p);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, p);
      await utimes(file, new Date(mtime), new Date(mtime));
    }
    return { root, store: new DirectoryStore(root) };
  }

  it('leaves an object written after its entry, deletes one written before and one whose schedule names no entry, and reports one the store no longer holds as gone, not deleted', async () => {
    const entryAt = Date.UTC(2026, 0, 1);
    const { root, store } = await storeWith({ 'old.parquet': entryAt - 60_000, 'rewritten.parquet': entryAt + 60_000, 'legacy.parquet': entryAt + 60_000 });
    const plan = {
      due: [
        { path: 'old.parquet', scheduledAt: 0, seq: kvSeq(7) },
        { path: 'rewritten.parquet', scheduledAt: 0, seq: kvSeq(7) },
        { path: 'legacy.parquet', scheduledAt: 0, seq: undefined },
        { path: 'never-written.parquet', scheduledAt: 0, seq: kvSeq(7) },
      ],
      orphans: [],
    };
    const asked: number[] = [];
    const writtenAt = async (seq: number) => (asked.push(seq), seq === 7 ? entryAt : undefined);

    const dry = await deleteObjects(store, 'data/', writtenAt, plan, true);
    expect(dry).toEqual({ deleted: ['old.parquet', 'legacy.parquet'], skipped: ['rewritten.parquet'], gone: ['never-written.parquet'], failed: [] });
    expect(existsSync(path.join(root, 'data', 'old.parquet'))).toBe(true);

    const done = await deleteObjects(store, 'data/', writtenAt, plan, false);
    expect(done).toEqual({ deleted: ['old.parquet', 'legacy.parquet'], skipped: ['rewritten.parquet'], gone: ['never-written.parquet'], failed: [] });
    expect(existsSync(path.join(root, 'data', 'rewritten.parquet'))).toBe(true);
    expect(existsSync(path.join(root, 'data', 'old.parquet'))).toBe(false);
    expect(existsSync(path.join(root, 'data', 'legacy.parquet'))).toBe(false);
    // One entry's time is read once per run, however many objects it scheduled.
    expect(asked).toEqual([7, 7]);
  });

  it('many due files in one folder are looked up by listing it, a few elsewhere one by one; a listing that meets mostly live files stops and leaves the rest to lookups; the answers are the same', async () => {
    const entryAt = Date.UTC(2026, 0, 1);
    const name = (i: number) => `t/f${String(i).padStart(4, '0')}.parquet`;
    for (const live of [0, 400]) {
      // 70 due files in t/, `live` files between them that no schedule names, and one due file in another
      // folder. Of the due ones in t/, one was written again after its entry (early in the folder: a listing
      // meets it) and one was never written (late: among 400 live files, a lookup meets it).
      const dueAt = (k: number) => (live === 0 ? k : k * 6);
      const [rewrittenAt, goneAt] = [dueAt(3), dueAt(60)];
      const files: Record<string, number> = { 'u/lone.parquet': entryAt - 60_000 };
      for (let i = 0; i < 70 + live; i++) if (i !== goneAt) files[name(i)] = i === rewrittenAt ? entryAt + 60_000 : entryAt - 60_000;
      const { root, store } = await storeWith(files);
      const counting = new CountingStore(store);
      const dueNames = Array.from({ length: 70 }, (_, k) => name(dueAt(k)));
      const due = [...dueNames, 'u/lone.parquet'].map((p) => ({ path: p, scheduledAt: 0, seq: kvSeq(7) }));
      const done = await deleteObjects(counting, 'data/', async () => entryAt, { due, orphans: [] }, false);
      const [rewritten, gone] = [[name(rewrittenAt)], [name(goneAt)]];
      expect(done).toEqual({
        deleted: [...dueNames.filter((p) => !rewritten.includes(p) && !gone.includes(p)), 'u/lone.parquet'],
        skipped: rewritten,
        gone,
        failed: [],
      });
      expect(existsSync(path.join(root, 'data', name(rewrittenAt)))).toBe(true);
      // With no live files between them, one listing answers for the folder: only the lone file and the one
      // the listing did not show (never written) are looked up.
      if (live === 0) expect(counting.counts).toMatchObject({ list: 1, info: 2 });
      // Among 400 live files, the listing gives up after 280 objects: the due files past them are looked up.
      else expect(counting.counts.info).toBeGreaterThan(1);
    }
  });
});
