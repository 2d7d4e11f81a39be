// What a careless caller gets: a typo in an option is refused before anything happens (a dry run must never
// become a real one), a missing argument is refused rather than defaulted, a type change that files already
// written cannot take is refused, and no size of one transaction overflows the stack.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog, isStrataError, type StrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';

const refused = (e: unknown, ...words: string[]) => {
  expect(isStrataError(e, 'INVALID_ARGUMENT'), String(e)).toBe(true);
  for (const w of words) expect((e as StrataError).message).toContain(w);
};

/** A catalog with something for every GC job to do: excisable history and files scheduled for deletion. */
async function withGarbage() {
  let now = Date.now(); // compactLog ages entries by the store's times, so the clock starts at the real one
  const dir = await tempDir();
  const c = await openCatalog({ dir, clock: () => (now += 1000), checkpointEvery: 0 });
  const store = new DirectoryStore(path.join(dir, 'store'));
  await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    await store.putIfAbsent(`data/f${i}.parquet`, new Uint8Array(4));
    await c.transaction(async (tx) => void ids.push(await tx.addDataFile('main', 't', { path: `f${i}.parquet`, recordCount: 1, fileSizeBytes: 4 })));
  }
  await c.transaction(async (tx) => {
    for (const id of ids) await tx.removeDataFile('main', 't', id);
  });
  await c.checkpoint();
  return { dir, c, store, advance: (ms: number) => (now += ms) };
}

describe('options with a typo are refused, naming the key and what was meant, before anything is done', () => {
  it('excise({ dryrun }), reclaimFiles({ dryrun }), compactLog({ dryrun }), pruneCheckpoints({ dryrun }) change nothing', async () => {
    const { c, store, advance } = await withGarbage();
    await c.advanceRetainFrom({ snapshot: (await c.snapshots()).at(-1)!.id });
    const before = await dumpCatalog(c);
    refused(await c.excise({ dryrun: true } as never).catch((e: unknown) => e), '"dryrun"', 'did you mean "dryRun"');
    expect(await dumpCatalog(c)).toEqual(before);
    await c.excise();
    advance(3 * 24 * 3600 * 1000);
    refused(await c.reclaimFiles({ dryrun: true, graceMs: 0 } as never).catch((e: unknown) => e), '"dryrun"', 'dryRun');
    expect(await store.get('data/f0.parquet')).toBeDefined();
    refused(await c.compactLog({ dryrun: true } as never).catch((e: unknown) => e), 'dryRun');
    expect((await c.compactLog({ dryRun: true, minAgeMs: 0 })).entries).toBeGreaterThan(0);
    refused(await c.pruneCheckpoints({ dry_run: true } as never).catch((e: unknown) => e), 'dryRun');
    refused(await c.verify({ file: true } as never).catch((e: unknown) => e), '"file"', 'did you mean "files"');
    refused(await c.advanceRetainFrom({ snapshot: 1 }, { dryrun: true } as never).catch((e: unknown) => e), 'dryRun');
    refused(await c.advanceRetainFrom({ snapshots: 1 } as never).catch((e: unknown) => e), '"snapshots"', 'snapshot');
    refused(await c.advanceRetainFrom(undefined as never).catch((e: unknown) => e), 'needs');
  });

  it('Catalog.open({ readonly }) is refused and writes nothing; so are a misspelt store and S3 option', async () => {
    const { dir, c } = await withGarbage();
    const head = (await c.snapshots()).at(-1)!.id;
    await c.close();
    refused(await Catalog.open({ dir, readonly: true } as never).catch((e: unknown) => e), '"readonly"', 'did you mean "readOnly"');
    refused(await Catalog.open({ dir, store: { paht: dir } } as never).catch((e: unknown) => e), '"paht"', 'path');
    refused(await Catalog.open({ dir, store: { s3: { bucket: 'b', endpiont: 'http://x' } } } as never).catch((e: unknown) => e), '"endpiont"', 'endpoint');
    const again = await openCatalog({ dir });
    expect((await again.snapshots()).at(-1)!.id).toBe(head);
  });

  it('reader, snapshots, changes, transaction metadata, leases and every transaction operation check their options', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
    refused(await c.reader({ snaphot: 1 } as never).catch((e: unknown) => e), 'did you mean "snapshot"');
    refused(await c.reader({ lease: { ttl: 1000 } } as never).catch((e: unknown) => e), '"ttl"', 'ttlMs');
    refused(await c.snapshots({ form: 0 } as never).catch((e: unknown) => e), 'did you mean "from"');
    refused(await c.changes('main', 't', { from: 0, too: 1 } as never).catch((e: unknown) => e), 'did you mean "to"');
    refused(await c.transaction(() => undefined, { autor: 'x' } as never).catch((e: unknown) => e), 'did you mean "author"');
    const fails = async (op: (tx: Parameters<Parameters<Catalog['transaction']>[0]>[0]) => Promise<unknown>, ...words: string[]) => {
      let err: unknown;
      await c.transaction(async (tx) => {
        err = await op(tx).catch((e: unknown) => e);
      });
      refused(err, ...words);
    };
    await fails((tx) => tx.addDataFile('main', 't', { path: 'a.parquet', recordCount: 1, fileSizeBytes: 1, recordcount: 2 } as never), 'recordcount');
    await fails((tx) => tx.addDataFile('main', 't', undefined as never), 'needs');
    await fails((tx) => tx.createTable('main', 'u', [{ name: 'x', type: 'int32', nullabel: false } as never]), 'did you mean "nullable"');
    await fails((tx) => tx.dropSchema('main', { cascde: true } as never), 'did you mean "cascade"');
    await fails((tx) => tx.createView('main', 'v', 'SELECT 1', { dialekt: 'x' } as never), 'dialect');
  });

  it('createTag without a snapshot is refused, never the newest', async () => {
    const c = await openCatalog();
    refused(await c.createTag('t', undefined as never).catch((e: unknown) => e), 'snapshot');
    expect(await c.tags()).toEqual([]);
  });
});

describe('a column type changes only by widening, as DuckLake, Iceberg and Delta allow', () => {
  it('int32 to int64 and float32 to float64 are taken; varchar to int64 and int64 to int32 are refused, naming what is allowed', async () => {
    const c = await openCatalog();
    await c.transaction((tx) =>
      tx.createTable('main', 't', [
        { name: 'a', type: 'int32' },
        { name: 'b', type: 'float32' },
        { name: 'c', type: 'varchar' },
        { name: 'd', type: 'int64' },
        { name: 'e', type: 'uint8' },
      ]),
    );
    await c.transaction(async (tx) => {
      await tx.alterColumnType('main', 't', 'a', 'int64');
      await tx.alterColumnType('main', 't', 'b', 'float64');
      await tx.alterColumnType('main', 't', 'e', 'uint16');
    });
    for (const [col, to, words] of [
      ['c', 'int64', ['varchar', 'none from varchar']],
      ['d', 'int32', ['int64', 'widening']],
      ['a', 'int32', ['int64']],
      ['b', 'varchar', ['float64']],
    ] as const) {
      let err: unknown;
      await c.transaction(async (tx) => {
        err = await tx.alterColumnType('main', 't', col, to).catch((e: unknown) => e);
      });
      refused(err, ...words);
    }
    const r = await c.reader();
    expect((await r.table('main', 't')).columns.map((x) => x.type)).toEqual(['int64', 'float64', 'varchar', 'int64', 'uint16']);
    await r.close();
  });
});

describe('no size of one transaction overflows the stack', () => {
  it('a commit of 100,000 files (and another of 100,000 in one call), a drop of that table, and a cascade drop of a schema of 20,000 tables', async () => {
    const c = await openCatalog({ checkpointEvery: 0, durability: 'relaxed' });
    await c.transaction((tx) => tx.createTable('main', 'big', [{ name: 'x', type: 'int32' }]));
    await c.transaction(async (tx) => {
      for (let i = 0; i < 100_000; i++) await tx.addDataFile('main', 'big', { path: `big/${i}.parquet`, recordCount: 1, fileSizeBytes: 1 });
    });
    const { snapshot } = await c.transaction((tx) =>
      tx.addDataFiles('main', 'big', Array.from({ length: 100_000 }, (_, i) => ({ path: `big/b${i}.parquet`, recordCount: 1, fileSizeBytes: 1 }))),
    );
    const r = await c.reader({ snapshot: snapshot! });
    let n = 0;
    for await (const batch of r.dataFileBatches('main', 'big')) n += batch.length;
    await r.close();
    expect(n).toBe(200_000);
    await c.transaction((tx) => tx.dropTable('main', 'big'));
    await c.transaction(async (tx) => {
      await tx.createSchema('many');
      for (let i = 0; i < 20_000; i++) await tx.createTable('many', `t${i}`, [{ name: 'x', type: 'int32' }]);
    });
    await c.transaction((tx) => tx.dropSchema('many', { cascade: true }));
    const after = await c.reader();
    expect((await after.schemas()).map((s) => s.name)).toEqual(['main']);
    expect(await after.tables('main')).toEqual([]);
    await after.close();
  }, 240_000);
});

describe('an operation that failed where the caller never looked fails the whole transaction', () => {
  const setup = async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
    await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'old.parquet', recordCount: 1, fileSizeBytes: 1 }));
    return c;
  };
  const badDelete = { dataFileId: 999, path: 'del.parquet', deleteCount: 1, fileSizeBytes: 1 };
  const newFile = { path: 'new.parquet', recordCount: 1, fileSizeBytes: 1 };

  it('an addDeleteFile aimed at no file, never awaited, then an awaited addDataFile: nothing commits, and the error says which operation', async () => {
    const c = await setup();
    const before = await dumpCatalog(c);
    const err = await c
      .transaction(async (tx) => {
        void tx.addDeleteFile('main', 't', badDelete);
        await tx.addDataFile('main', 't', newFile);
      })
      .catch((e: unknown) => e);
    expect(isStrataError(err, 'NOT_FOUND'), String(err)).toBe(true);
    expect((err as StrataError).message).toContain('addDeleteFile');
    expect((err as StrataError).message).toContain('never awaited');
    expect(await dumpCatalog(c)).toEqual(before);
  });

  it('a failure the caller caught, or saw through Promise.allSettled, leaves the transaction as it was: the rest commits', async () => {
    const c = await setup();
    const caught = await c.transaction(async (tx) => {
      await tx.addDeleteFile('main', 't', badDelete).catch(() => undefined);
      await tx.addDataFile('main', 't', newFile);
    });
    expect(caught.snapshot).toBe(3);
    const settled = await c.transaction(async (tx) => {
      const results = await Promise.allSettled([tx.addDeleteFile('main', 't', badDelete), tx.addDataFile('main', 't', { ...newFile, path: 'other.parquet' })]);
      expect(results.map((x) => x.status)).toEqual(['rejected', 'fulfilled']);
    });
    expect(settled.snapshot).toBe(4);
    const r = await c.reader();
    expect((await r.dataFiles('main', 't')).map((f) => f.path).sort()).toEqual(['new.parquet', 'old.parquet', 'other.parquet']);
    expect(await r.deleteFiles('main', 't')).toEqual([]);
    await r.close();
  });

  it('an operation still running when the function returns is waited for and commits', async () => {
    const c = await setup();
    const { snapshot } = await c.transaction((tx) => {
      void tx.addDataFile('main', 't', newFile);
    });
    const r = await c.reader({ snapshot: snapshot! });
    expect((await r.dataFiles('main', 't')).map((f) => f.path).sort()).toEqual(['new.parquet', 'old.parquet']);
    await r.close();
  });
});

describe('close() while reads are under way', () => {
  it('each read in flight fails with a StrataError (never a raw LevelDB error), and close still completes', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]);
      for (let i = 0; i < 3000; i++) await tx.addDataFile('main', 't', { path: `f${i}`, recordCount: 1, fileSizeBytes: 1 });
    });
    const r = await c.reader();
    const reads = Promise.allSettled([r.dataFiles('main', 't'), r.tables('main'), c.snapshots(), c.changes('main', 't', { from: 0, to: 1 })]);
    await c.close();
    for (const outcome of await reads) {
      if (outcome.status === 'fulfilled') continue; // finished before the close
      refused(outcome.reason, 'closed');
    }
    refused(await r.table('main', 't').catch((e: unknown) => e), 'closed');
  });
});
