import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogId, fileId, kvSeq, snapshotId } from '../../keys/ids.js';
import { createSnapshot } from '../../keys/snapshots.js';
import { isStrataError } from '../../src/index.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { resolveSnapshot } from '../../src/read/resolve-snapshot.js';
import { openCatalog, tempDir } from '../helpers.js';

describe('views share one frozen LevelDB state while nothing is applied', () => {
  it('readers of one state keep reading after the others close, and never see later commits', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    const [a, b] = [await c.reader(), await c.reader()];
    await a.close();
    expect((await b.tables('main')).map((t) => t.name)).toEqual(['t']);
    await c.transaction((tx) => tx.renameTable('main', 't', 'u'));
    const d = await c.reader();
    expect((await d.tables('main')).map((t) => t.name)).toEqual(['u']);
    expect((await b.tables('main')).map((t) => t.name)).toEqual(['t']);
    const e = await c.reader({ snapshot: 1 });
    await d.close();
    expect((await e.tables('main')).map((t) => t.name)).toEqual(['t']);
    await Promise.all([b.close(), e.close()]);
    // Many readers opened and closed in any order.
    const many = await Promise.all(Array.from({ length: 20 }, () => c.reader()));
    for (const r of many.reverse()) {
      expect(r.snapshot.id).toBe(2);
      await r.close();
    }
  });

  it('a view cannot resolve a snapshot committed after it was taken, though the shared cache already holds its row', async () => {
    const dir = await tempDir();
    const c = await openCatalog({ dir });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    await c.close();
    const kv = await KvStore.open(path.join(dir, 'index'));
    try {
      const old = await kv.readView();
      // The next snapshot's rows, as a commit writes them: the apply puts them in the cache at once.
      const next = snapshotId(2);
      const row = { time: Date.now(), schemaVersion: 1, nextCatalogId: catalogId(2), nextFileId: fileId(0) };
      const changes = { changes: [], author: null, message: null, extraInfo: null, maintenance: false };
      await kv.apply(kvSeq(old.seq + 1), 'next', createSnapshot(next, row, changes, false));
      await expect(resolveSnapshot(old, { snapshot: 2 }, { previousWalkLimit: 10 })).rejects.toSatisfy((e) => isStrataError(e, 'SNAPSHOT_NOT_FOUND'));
      const fresh = await kv.readView();
      expect((await resolveSnapshot(fresh, { snapshot: 2 }, { previousWalkLimit: 10 })).id).toBe(2);
      await Promise.all([old.close(), fresh.close()]);
    } finally {
      await kv.close();
    }
  });
});
