// Paths a careless engine or a hostile user can give: what the store could not address or delete later is
// refused when registered; reclamation never deletes through a symbolic link or outside the store, leaves an
// object that was rewritten after it was scheduled, and reports what it cannot delete without stopping.
import { existsSync } from 'node:fs';
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFilePath } from '../../src/arguments.js';
import { type Catalog, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';

const spec = (p: string) => ({ path: p, recordCount: 1, fileSizeBytes: 1 });

/** Registers `paths` (writing each object), then removes and excises them: all scheduled for reclamation. */
async function scheduled(c: Catalog, root: string, paths: string[], write = true): Promise<void> {
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
  const ids: number[] = [];
  for (const p of paths) if (write) await writeObject(root, p);
  await c.transaction(async (tx) => {
    for (const p of paths) ids.push(await tx.addDataFile('main', 't', spec(p)));
  });
  await c.transaction(async (tx) => {
    for (const id of ids) await tx.removeDataFile('main', 't', id);
  });
  await c.advanceRetainFrom({ snapshot: (await c.snapshots()).at(-1)!.id });
  expect((await c.excise()).files).toBe(paths.length);
}

async function writeObject(root: string, p: string, body = 'x'): Promise<void> {
  const file = path.join(root, 'data', p);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, body);
}

describe('paths the store cannot address or delete are refused when registered', () => {
  it('hidden segments, over-long segments and keys, lone surrogates and control characters: INVALID_ARGUMENT, nothing committed', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
    const before = await dumpCatalog(c);
    for (const [bad, why] of [
      ['.hidden.parquet', 'starts with "."'],
      ['year=2026/.part/f.parquet', 'starts with "."'],
      [`${'s'.repeat(300)}.parquet`, '255 bytes'],
      [`${'é'.repeat(130)}.parquet`, '255 bytes'],
      [Array.from({ length: 45 }, () => "d".repeat(100)).join("/"), 'bytes'],
      ['bad\uD800name.parquet', 'unicode'],
      ['tab\there.parquet', 'control'],
    ] as const) {
      let err: unknown;
      await c.transaction(async (tx) => {
        err = await tx.addDataFile('main', 't', spec(bad)).catch((e: unknown) => e);
      });
      expect(isStrataError(err, 'INVALID_ARGUMENT'), `${bad.slice(0, 40)}: ${String(err)}`).toBe(true);
      expect(String((err as Error).message), bad.slice(0, 40)).toContain(why);
    }
    expect(await dumpCatalog(c)).toEqual(before);
  });

  it('counts UTF-8 bytes, not characters, at the 255-byte segment and whole-path limits', () => {
    // Characters of 1, 2, 3 and 4 UTF-8 bytes, in segments on both sides of 255 bytes.
    const char = fc.constantFrom('s', 'é', '€', '😀');
    const segment = fc.array(char, { minLength: 60, maxLength: 260 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.integer({ min: 100, max: 1200 }), (segs, maxBytes) => {
        const p = segs.join('/');
        const fits = segs.every((seg) => Buffer.byteLength(seg) <= 255) && Buffer.byteLength(p) <= maxBytes;
        let refused: unknown;
        try {
          expect(checkFilePath('data file path', p, maxBytes)).toBe(p);
        } catch (e) {
          refused = e;
        }
        expect(refused === undefined, `${segs.map((seg) => Buffer.byteLength(seg)).join('/')} bytes, at most ${maxBytes}: ${String(refused)}`).toBe(fits);
        if (refused !== undefined) expect(isStrataError(refused, 'INVALID_ARGUMENT')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('reclamation', () => {
  it('never deletes through a symbolic link, reports it, deletes the rest, and the next run goes on', async () => {
    const dir = await tempDir();
    const outside = await tempDir();
    await writeFile(path.join(outside, 'f.parquet'), 'precious');
    await writeFile(path.join(outside, 'g.parquet'), 'precious');
    const root = path.join(dir, 'store');
    const c = await openCatalog({ dir });
    await mkdir(path.join(root, 'data'), { recursive: true });
    await symlink(outside, path.join(root, 'data', 'linkdir'));
    await writeObject(root, 'a.parquet');
    await writeObject(root, 'z.parquet');
    await scheduled(c, root, ['a.parquet', 'linkdir/f.parquet', 'z.parquet'], false);

    const report = await c.reclaimFiles({ graceMs: 0 });
    expect(existsSync(path.join(outside, 'f.parquet'))).toBe(true);
    expect(report.deleted).toEqual(['a.parquet', 'z.parquet']);
    expect(report.failed.map((f) => f.path)).toEqual(['linkdir/f.parquet']);
    expect(report.failed[0]!.reason).toContain('symbolic link');
    expect(existsSync(path.join(root, 'data', 'z.parquet'))).toBe(false);
    // It stays scheduled and is reported again; nothing throws.
    const again = await c.reclaimFiles({ graceMs: 0 });
    expect(again.failed.map((f) => f.path)).toEqual(['linkdir/f.parquet']);
    // An orphan sweep does not walk into the link either.
    const sweep = await c.reclaimFiles({ orphans: true, minAgeMs: 0 });
    expect(sweep.orphans).toEqual([]);
    expect(existsSync(path.join(outside, 'g.parquet'))).toBe(true);
  });

  it('a scheduled file under a link whose target is missing (an unmounted volume) is not taken for gone: it fails and stays scheduled; one never written is gone, once', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'store');
    const c = await openCatalog({ dir });
    await mkdir(path.join(root, 'data'), { recursive: true });
    await symlink(path.join(dir, 'unmounted'), path.join(root, 'data', 'volume'));
    await scheduled(c, root, ['never-written.parquet', 'volume/f.parquet'], false);

    const report = await c.reclaimFiles({ graceMs: 0 });
    expect({ deleted: report.deleted, gone: report.gone, failed: report.failed.map((f) => f.path) }).toEqual({ deleted: [], gone: ['never-written.parquet'], failed: ['volume/f.parquet'] });
    const again = await c.reclaimFiles({ graceMs: 0 });
    expect({ gone: again.gone, failed: again.failed.map((f) => f.path) }).toEqual({ gone: [], failed: ['volume/f.parquet'] });
  });

  it('leaves an object an engine rewrote at a scheduled path after it was scheduled', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'store');
    const c = await openCatalog({ dir });
    await scheduled(c, root, ['old.parquet', 'rewritten.parquet']);
    // Rewritten a minute after the excision scheduled it (a later mtime, as a rewrite leaves).
    const later = new Date(Date.now() + 60_000);
    await writeObject(root, 'rewritten.parquet', 'new contents');
    await utimes(path.join(root, 'data', 'rewritten.parquet'), later, later);
    expect(await c.reclaimFiles({ graceMs: 0, dryRun: true })).toMatchObject({ deleted: ['old.parquet'], skipped: ['rewritten.parquet'] });
    const report = await c.reclaimFiles({ graceMs: 0 });
    expect(report.deleted).toEqual(['old.parquet']);
    expect(report.skipped).toEqual(['rewritten.parquet']);
    expect(existsSync(path.join(root, 'data', 'rewritten.parquet'))).toBe(true);
    // No longer scheduled: the object is the engine's now.
    expect((await c.reclaimFiles({ graceMs: 0 })).skipped).toEqual([]);
  });

  it('an object the store refuses to delete is reported and does not block the ones after it', async () => {
    const dir = await tempDir();
    const root = path.join(dir, 'store');
    const store = new FaultyStore(new DirectoryStore(root), {
      beforeDelete: (key) => {
        if (key.endsWith('b.parquet')) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    });
    const c = await openCatalog({ dir, store });
    await scheduled(c, root, ['a.parquet', 'b.parquet', 'c.parquet']);
    const report = await c.reclaimFiles({ graceMs: 0 });
    expect(report.deleted).toEqual(['a.parquet', 'c.parquet']);
    expect(report.failed).toEqual([{ path: 'b.parquet', reason: expect.stringContaining('permission denied') }]);
    expect(existsSync(path.join(root, 'data', 'c.parquet'))).toBe(false);
  });
});
