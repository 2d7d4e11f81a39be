// What the store holds is checked before it is believed: a damaged log entry, checkpoint chunk or manifest
// gives a new machine the catalog as it was or CORRUPT, never a different catalog and never a raw error; a
// gap in the log is CORRUPT naming the missing entry and nobody commits into it; a damaged newest checkpoint
// is passed over for an older one or the log. On the directory store and on S3.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { frame, unframe } from '../../keys/framing.js';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError, type OpenOptions } from '../../src/index.js';
import { logObjectKey } from '../../src/log/object-log.js';
import { LOG_LAYOUTS, type LogLayout } from '../../src/log/open-log.js';
import { SEGMENTS_DIR } from '../../src/log/segment-file.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import type { ObjectStore } from '../../src/store/object-store.js';
import { S3Store } from '../../src/store/s3-store.js';
import { seeded } from '../support/random.js';
import { span, splice } from '../support/segments.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';
import { freshS3Store, s3Options } from '../store/s3-env.js';

interface Where {
  /** The store as a catalog opens it, and as the test reaches into it. */
  store: () => NonNullable<OpenOptions['store']>;
  raw: ObjectStore;
  /** How the log is kept: entries as objects, or records in segment files. */
  layout: LogLayout;
}

/** What holds the log: its objects, or its segment files (each a key the raw store reads and replaces). */
async function logUnits(where: Where): Promise<string[]> {
  return objectsOf(where.raw, where.layout === 'objects' ? 'log/' : `${SEGMENTS_DIR}/`);
}

/** Entry `seq` taken out of the log, its neighbours left. */
async function removeEntry(where: Where, seq: number): Promise<void> {
  if (where.layout === 'objects') await where.raw.delete([logObjectKey(kvSeq(seq))]);
  else splice(span(where.raw.localRoot!, seq), new Uint8Array(0));
}

/** A history with a checkpoint in the middle and entries after it, as a new machine bootstraps it. */
async function history(where: Where, opts: { checkpoints: number; compact?: boolean } = { checkpoints: 1 }) {
  const c = await openCatalog({ dir: await tempDir(), store: where.store(), checkpointEvery: 0, logLayout: where.layout });
  await c.transaction(async (tx) => {
    await tx.createSchema('s');
    await tx.createTable('s', 't', [{ name: 'a', type: 'int64' }]);
  });
  for (let round = 0; round < opts.checkpoints; round++) {
    for (let i = 0; i < 3; i++) {
      await c.transaction((tx) => tx.addDataFile('s', 't', { path: `r${round}/f${i}.parquet`, recordCount: i + 1, fileSizeBytes: 10 + i }));
    }
    await c.createTag(`t${round}`, 2);
    await c.checkpoint();
  }
  if (opts.compact) await c.compactLog({ minAgeMs: 0 });
  await c.transaction((tx) => tx.renameTable('s', 't', 'u'));
  await c.transaction((tx) => tx.addDataFile('s', 'u', { path: 'last.parquet', recordCount: 9, fileSizeBytes: 99 }));
  return { writer: c, expected: await dumpCatalog(c) };
}

/** What a new machine reads: the catalog dumped, or the error it got. */
async function newMachine(where: Where): Promise<{ dump: unknown } | { error: unknown }> {
  try {
    const c = await openCatalog({ dir: await tempDir(), store: where.store(), readOnly: true });
    return { dump: await dumpCatalog(c) };
  } catch (error) {
    return { error };
  }
}

async function objectsOf(raw: ObjectStore, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of raw.list(prefix)) out.push(o.key);
  return out;
}

function suite(name: string, make: () => Promise<Where>, flips: number) {
  describe(`store damage: ${name}`, () => {
    it(`${flips} single-bit flips over log entries, checkpoint chunks and manifests: the same catalog or CORRUPT, never another`, { timeout: 60_000 }, async () => {
      const where = await make();
      const { expected } = await history(where, { checkpoints: 2 });
      const objects = [...(await logUnits(where)), ...(await objectsOf(where.raw, 'checkpoints/'))];
      const random = seeded(20261201);
      const outcomes = { same: 0, corrupt: 0 };
      for (let i = 0; i < flips; i++) {
        const key = objects[Math.floor(random() * objects.length)]!;
        const original = (await where.raw.get(key))!;
        const damaged = Uint8Array.from(original);
        const at = Math.floor(random() * damaged.length);
        damaged[at] = damaged[at]! ^ (1 << Math.floor(random() * 8));
        await where.raw.replace(key, damaged);
        const got = await newMachine(where);
        await where.raw.replace(key, original);
        if ('dump' in got) {
          expect(got.dump, `flip ${i}: byte ${at} of ${key}`).toEqual(expected);
          outcomes.same++;
        } else {
          expect(isStrataError(got.error, 'CORRUPT'), `flip ${i}: byte ${at} of ${key} gave ${String(got.error)}`).toBe(true);
          outcomes.corrupt++;
        }
      }
      // Both outcomes happen: flips in what bootstrap reads are caught, flips in what it can do without are passed over.
      expect(outcomes.same).toBeGreaterThan(0);
      expect(outcomes.corrupt).toBeGreaterThan(0);
    });

    it('a deleted middle entry is CORRUPT naming it for a new machine, and a writer behind it cannot commit into it', async () => {
      const where = await make();
      const behind = await openCatalog({ dir: await tempDir(), store: where.store(), logLayout: where.layout });
      // No checkpoint: one would stand for the entries before it, and a new machine would not need them
      // (verify still reads the whole log and reports a gap there).
      const { writer } = await history(where, { checkpoints: 0 });
      for (let i = 0; i < 4; i++) await writer.transaction((tx) => tx.setOption(`o${i}`, String(i)));
      const missing = kvSeq(Math.floor((await writer.snapshots()).length / 2));
      await removeEntry(where, missing);
      const got = await newMachine(where);
      expect('error' in got && isStrataError(got.error, 'CORRUPT')).toBe(true);
      expect((got as { error: Error }).error.message).toContain(`log entry ${missing} `);
      // A writer whose index stops before the gap finds it before it writes.
      const failed = await behind.transaction((tx) => tx.createSchema('into_the_gap')).catch((e: unknown) => e);
      expect(isStrataError(failed, 'CORRUPT')).toBe(true);
      // Nothing was written into it: a new machine still finds the same gap.
      const again = await newMachine(where);
      expect('error' in again && (again.error as Error).message).toContain(`log entry ${missing} `);
      await writer.close();
    });

    it('a damaged newest checkpoint is passed over for an older one, or for the log; with the log compacted into it, CORRUPT', async () => {
      const where = await make();
      const { expected } = await history(where, { checkpoints: 2 });
      const checkpoints = await objectsOf(where.raw, 'checkpoints/');
      const newest = checkpoints.filter((k) => k.includes(checkpoints.at(-1)!.split('/')[1]!));
      for (const key of newest) {
        const original = (await where.raw.get(key))!;
        await where.raw.replace(key, original.subarray(0, original.length - 7));
        expect(await newMachine(where)).toEqual({ dump: expected });
        // Both checkpoints damaged: the log from its start.
        for (const older of checkpoints.filter((k) => !newest.includes(k) && k.endsWith('/manifest'))) {
          const o = (await where.raw.get(older))!;
          await where.raw.replace(older, Uint8Array.of(2, ...o.subarray(1, 5).map((b) => b ^ 0xff), ...o.subarray(5)));
          expect(await newMachine(where)).toEqual({ dump: expected });
          await where.raw.replace(older, o);
        }
        await where.raw.replace(key, original);
      }
      // Compacted into the newest checkpoint, the log no longer has what it stood for.
      const compacted = await make();
      await history(compacted, { checkpoints: 2, compact: true });
      const [chunk] = (await objectsOf(compacted.raw, 'checkpoints/')).filter((k) => k.endsWith('chunk-000001')).slice(-1);
      const bytes = (await compacted.raw.get(chunk!))!;
      await compacted.raw.replace(chunk!, bytes.subarray(0, 10));
      const got = await newMachine(compacted);
      expect('error' in got && isStrataError(got.error, 'CORRUPT')).toBe(true);
    });
  });
}

for (const layout of LOG_LAYOUTS) {
  suite(
    `directory store, log kept as ${layout}`,
    async () => {
      const path = `${await tempDir()}/store`;
      return { store: () => ({ path }), raw: new DirectoryStore(path), layout };
    },
    150,
  );
}

const s3 = s3Options();
if (s3 !== undefined) {
  suite(
    'S3',
    async () => {
      await freshS3Store(s3);
      const prefix = `damage-${randomUUID()}`;
      return { store: () => ({ s3: { ...s3, prefix } }), raw: new S3Store({ ...s3, prefix }), layout: 'objects' };
    },
    40,
  );
}

describe('stores written before checksums', () => {
  it('still open: entries, chunks and manifests in plain frames, entries naming no predecessor, chunks as bare arrays', async () => {
    const path = `${await tempDir()}/store`;
    const raw = new DirectoryStore(path);
    const where: Where = { store: () => ({ path }), raw, layout: 'objects' }; // checksums came before segments
    const { expected } = await history(where, { checkpoints: 1 });
    // Rewrite every object as the earlier format wrote it.
    for (const key of [...(await objectsOf(raw, 'log/')), ...(await objectsOf(raw, 'checkpoints/'))]) {
      const payload = unframe((await raw.get(key))!) as Record<string, unknown>;
      const { prev: _prev, ...entry } = payload;
      const old = key.startsWith('log/') ? entry : key.endsWith('/manifest') ? (({ txn: _t, ...m }) => m)(payload) : payload.pairs;
      await raw.replace(key, frame(old));
      expect((await raw.get(key))![0]).toBe(1);
    }
    expect(await newMachine(where)).toEqual({ dump: expected });
    // And a writer goes on from there, its entries checksummed again.
    const c = await openCatalog({ dir: await tempDir(), store: where.store() });
    await c.transaction((tx) => tx.createSchema('after'));
    const newest = (await objectsOf(raw, 'log/')).at(-1)!;
    expect((await raw.get(newest))![0]).toBe(2);
  });
});
