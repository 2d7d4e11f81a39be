// A data file id's table through the runs commits write (decision 0068), read from a real LevelDB index:
// the greatest run at or below an id holds it only up to its last id, and ids between runs — a delete
// file's, another table's, a gap — are held by none.
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addedDataFiles, type ManifestFile } from '../../keys/data-files.js';
import { catalogId, type FileId, fileId, kvSeq, snapshotId } from '../../keys/ids.js';
import { KvStore } from '../../src/kv/kv-store.js';
import * as q from '../../src/read/catalog-queries.js';
import { tempDir } from '../helpers.js';

const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

const file = (id: number): ManifestFile => [fileId(id), `d/${id}.parquet`, 'parquet', 1, 1, null, 0, null];

/** Table 5's files 3–6 and 9 at snapshot 2, table 7's 7 and 20–21 at snapshot 3; 8 is a delete file's, 10–19 nobody's. */
async function indexed() {
  const kv = await KvStore.open(path.join(await tempDir(), 'index'));
  stores.push(kv);
  await kv.apply(kvSeq(1), 'txn-1', [...addedDataFiles(catalogId(5), snapshotId(2), [9, 3, 4, 5, 6].map(file)), ...addedDataFiles(catalogId(7), snapshotId(3), [7, 20, 21].map(file))]);
  return kv.readView();
}

describe('data file ids by runs', () => {
  it('give each id its table, and none to an id no run holds', async () => {
    const view = await indexed();
    try {
      const tables = await Promise.all([2, 3, 6, 7, 8, 9, 10, 19, 20, 21, 22].map((id) => q.tableOfDataFile(view, id as FileId)));
      expect(tables).toEqual([undefined, 5, 5, 7, undefined, 5, undefined, undefined, 7, 7, undefined]);
    } finally {
      await view.close();
    }
  });

  it('say which of many ids a run holds, in one step back and one scan', async () => {
    const view = await indexed();
    try {
      const ids = [22, 8, 3, 10, 21, 2, 7, 19, 6] as FileId[];
      expect(await q.heldByRuns(view, ids)).toEqual([false, false, true, false, true, false, true, false, true]);
      expect(await q.heldByRuns(view, [5 as FileId])).toEqual([true]);
      expect(await q.heldByRuns(view, [])).toEqual([]);
    } finally {
      await view.close();
    }
  });
});
