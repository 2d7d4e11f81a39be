import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog, isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { Occurrences } from '../support/occurrences.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';

describe('several processes on one store', () => {
  it('refresh() applies what another index committed; transactions catch up by themselves', async () => {
    const store = { path: path.join(await tempDir(), 'store') };
    const a = await openCatalog({ dir: await tempDir(), store });
    const b = await openCatalog({ dir: await tempDir(), store });
    const stale = await b.reader();
    await a.transaction((tx) => tx.createTable('main', 'from_a', [{ name: 'x', type: 'int64' }]));

    expect(stale.snapshot.id).toBe(0);
    await b.refresh();
    // A new reader also catches up by itself; one opened before keeps its snapshot.
    const fresh = await b.reader();
    expect((await fresh.tables('main')).map((t) => t.name)).toEqual(['from_a']);
    expect((await stale.tables('main')).map((t) => t.name)).toEqual([]);
    await Promise.all([stale.close(), fresh.close()]);

    // b's transaction builds on a's commit without an explicit refresh.
    await a.transaction((tx) => tx.createTable('main', 'also_from_a', [{ name: 'x', type: 'int64' }]));
    const { snapshot } = await b.transaction((tx) => tx.dropTable('main', 'also_from_a'));
    expect(snapshot).toBe(3);
    await a.refresh();
    expect(await dumpCatalog(a)).toEqual(await dumpCatalog(b));
  });

  it('a writer that loses the log race rebases onto the winner; out of attempts it gets CONFLICT and writes nothing', async () => {
    const root = await tempDir();
    const storePath = path.join(root, 'store');
    // Staged at the create of b's log object (the object layout; the committer's rebase is the same on both).
    // The winner sees no writer waiting for its turn (as a version before turns, decision 0060): a writer
    // that sees one lets it go first, and b would then lose no race.
    const blind = new FaultyStore(new DirectoryStore(storePath), { unlisted: (key) => key.startsWith('turns/') });
    const a = await openCatalog({ dir: path.join(root, 'a'), store: blind, logLayout: 'objects' });
    let interfere = 0;
    let wins = 0;
    const racing = new FaultyStore(new DirectoryStore(storePath), {
      beforeCreate: async (key) => {
        if (key.startsWith('log/') && interfere > 0) {
          interfere--;
          await a.transaction((tx) => tx.createSchema(`winner${++wins}`));
        }
      },
    });
    const b = await openCatalog({ dir: path.join(root, 'b'), store: racing, maxCommitAttempts: 3 });
    interfere = 2;
    expect(await b.transaction((tx) => tx.createSchema('rebased'))).toEqual({ snapshot: 3 });

    interfere = 3;
    const err = await b.transaction((tx) => tx.createSchema('loser')).catch((e: unknown) => e);
    expect(isStrataError(err, 'CONFLICT')).toBe(true);
    expect((err as { snapshot?: number }).snapshot).toBe(6);
    expect((err as Error).message).toMatch(/3 times in a row .*snapshot 6/);

    const { snapshot } = await b.transaction((tx) => tx.createSchema('loser'));
    expect(snapshot).toBe(7);
    await a.refresh();
    const r = await a.reader();
    expect((await r.schemas()).map((s) => s.name)).toEqual(['loser', 'main', 'rebased', 'winner1', 'winner2', 'winner3', 'winner4', 'winner5']);
    await r.close();
  });

  it('a read-only process bootstraps its own index from the store and never writes to it', async () => {
    const dir = await tempDir();
    const writer = await openCatalog({ dir });
    await writer.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    let writes = 0;
    const watched = new FaultyStore(new DirectoryStore(path.join(dir, 'store')), { beforeCreate: () => void writes++ });
    const follower = await openCatalog({ dir: await tempDir(), store: watched, readOnly: true });
    expect(await dumpCatalog(follower)).toEqual(await dumpCatalog(writer));
    await writer.transaction((tx) => tx.dropTable('main', 't'));
    await follower.refresh();
    expect(await dumpCatalog(follower)).toEqual(await dumpCatalog(writer));
    expect(writes).toBe(0);
  });

  it('two processes creating one catalog at once end up with one catalog', async () => {
    const store = { path: path.join(await tempDir(), 'store') };
    const [a, b] = await Promise.all([
      Catalog.open({ dir: await tempDir(), store }),
      Catalog.open({ dir: await tempDir(), store }),
    ]);
    await a.transaction((tx) => tx.createSchema('s'));
    await b.refresh();
    expect(await dumpCatalog(b)).toEqual(await dumpCatalog(a));
    await Promise.all([a.close(), b.close()]);
  });
});

describe('followers', () => {
  it('followIntervalMs keeps a read-only follower current in the background, commit after commit', async () => {
    const store = { path: path.join(await tempDir(), 'store') };
    const writer = await openCatalog({ dir: await tempDir(), store });
    // The follower stamps each background refresh it completes with a reading of its clock: each reading is
    // the event this test waits on, so nothing here sleeps or keeps a time window (the test's timeout bounds it).
    let t = Date.UTC(2026, 0, 1);
    const readings = new Occurrences();
    const clock = () => {
      readings.happened();
      return (t += 1000);
    };
    const follower = await openCatalog({ dir: await tempDir(), store, readOnly: true, followIntervalMs: 10, clock });
    // snapshots() reads the index as it stands; reader() and refresh() would bring it up to date themselves.
    const newest = async () => (await follower.snapshots()).at(-1)!.id;
    // Several commits, each awaited on its own: a follower that refreshed once would miss the later ones.
    for (const name of ['first', 'second', 'third']) {
      const { snapshot } = await writer.transaction((tx) => tx.createSchema(name));
      for (;;) {
        const seen = readings.times;
        if ((await newest()) === snapshot) break;
        await readings.reached(seen + 1);
      }
    }
    expect(follower.followStatus().lastRefreshAt?.getTime()).toBeGreaterThan(Date.UTC(2026, 0, 1));
    expect(follower.followStatus().lastError).toBeNull();
  });
});
