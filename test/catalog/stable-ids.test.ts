// The ids a transaction hands out (tables, views, schemas, files) are the ids it commits, however it is
// rebased: an engine keeps them (a file id to remove it later, to aim a delete file at it) before the
// commit lands. Concurrent transactions of one process, and of two writers on one store.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';

const file = (p: string) => ({ path: p, recordCount: 10, fileSizeBytes: 100 });

/** Path → id, as committed at the newest snapshot. */
async function committedIds(c: Catalog, table: string): Promise<Map<string, number>> {
  const r = await c.reader();
  try {
    return new Map((await r.dataFiles('main', table)).map((f) => [f.path, f.id]));
  } finally {
    await r.close();
  }
}

describe('ids handed out inside a transaction are the ids it commits', () => {
  it('three concurrent transactions of one process, 15 files: every id returned is the id committed', async () => {
    const c = await openCatalog();
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
    const returned = new Map<string, number>();
    // Each function adds a file, then yields, so the three interleave and all but the first are rebased.
    await Promise.all(
      ['A', 'B', 'C'].map((name) =>
        c.transaction(async (tx) => {
          for (let i = 0; i < 5; i++) {
            returned.set(`${name}-${i}`, await tx.addDataFile('main', 't', file(`${name}-${i}`)));
            await new Promise((r) => setImmediate(r));
          }
        }),
      ),
    );
    expect(await committedIds(c, 't')).toEqual(returned);

    // What an engine does with an id it kept: remove B-0, aim a delete file at B-1. They hit B's files.
    await c.transaction(async (tx) => {
      await tx.removeDataFile('main', 't', returned.get('B-0')!);
      await tx.addDeleteFile('main', 't', { dataFileId: returned.get('B-1')!, path: 'del-B-1.parquet', deleteCount: 1, fileSizeBytes: 10 });
    });
    const r = await c.reader();
    const files = await r.dataFiles('main', 't');
    expect(files.map((f) => f.path)).not.toContain('B-0');
    expect(files.map((f) => f.path)).toContain('A-0');
    const deletes = await r.deleteFiles('main', 't');
    expect(deletes.map((d) => [d.path, files.find((f) => f.id === d.dataFileId)?.path])).toEqual([['del-B-1.parquet', 'B-1']]);
    await r.close();
  });

  it('two writers on one store: a transaction rebased onto the other writer\'s commit keeps its table and file ids', async () => {
    const dir = await tempDir();
    const store = { path: path.join(dir, 'store') };
    const a = await openCatalog({ dir, store });
    await a.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int32' }]));
    const b = await openCatalog({ dir: await tempDir(), store });

    // A's function runs on the state before B's commit and commits after it: A is rebased.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let aTable = -1;
    const aFiles: number[] = [];
    const aDone = a.transaction(async (tx) => {
      aTable = await tx.createTable('main', 'from_a', [{ name: 'x', type: 'int32' }]);
      for (let i = 0; i < 3; i++) aFiles.push(await tx.addDataFile('main', 't', file(`a-${i}`)));
      await gate;
    });
    let bTable = -1;
    const bFiles: number[] = [];
    await b.transaction(async (tx) => {
      bTable = await tx.createTable('main', 'from_b', [{ name: 'x', type: 'int32' }]);
      for (let i = 0; i < 3; i++) bFiles.push(await tx.addDataFile('main', 't', file(`b-${i}`)));
    });
    release();
    const { snapshot } = await aDone;
    expect(snapshot).toBe(3);

    await a.refresh();
    const r = await a.reader();
    expect((await r.table('main', 'from_a')).id).toBe(aTable);
    expect((await r.table('main', 'from_b')).id).toBe(bTable);
    await r.close();
    const ids = await committedIds(a, 't');
    expect([0, 1, 2].map((i) => ids.get(`a-${i}`))).toEqual(aFiles);
    expect([0, 1, 2].map((i) => ids.get(`b-${i}`))).toEqual(bFiles);
    expect(new Set([...aFiles, ...bFiles]).size).toBe(6);

    // B's block was claimed after A's, so snapshot 2 holds higher ids than snapshot 3: listings, which merge
    // the manifests with the ends by id, must go back for A's. Remove one of each and read every snapshot,
    // from the writer's index and from a fresh one.
    const { snapshot: removed } = await a.transaction(async (tx) => {
      await tx.removeDataFile('main', 't', aFiles[1]!);
      await tx.removeDataFile('main', 't', bFiles[0]!);
    });
    const fresh = await openCatalog({ dir: await tempDir(), store, readOnly: true });
    const expected: Record<number, string[]> = {
      2: ['b-0', 'b-1', 'b-2'],
      3: ['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'b-2'],
      [removed!]: ['a-0', 'a-2', 'b-1', 'b-2'],
    };
    for (const c of [fresh, a]) {
      for (const [s, paths] of Object.entries(expected)) {
        const at = await c.reader({ snapshot: Number(s) });
        expect((await at.dataFiles('main', 't')).map((f) => f.path).sort(), `at ${s}`).toEqual(paths);
        await at.close();
      }
    }
    expect((await a.verify()).violations).toEqual([]);
  });
});
