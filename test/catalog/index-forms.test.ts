// The indexes of files in both of their forms. A log written before decisions 0067 and 0068 holds, per object
// path, one value of every file id naming it, rewritten by each commit that named the path, and an entry per
// data file naming its table; since, each file names its path by a key of its own, and each commit gives a
// run of its ids to their table in one key. A catalog whose history holds both reads, refuses, excises and
// reclaims as one written in either: no object a row still names is deleted, and one none names goes.
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeIdRange, decodePathRef, pathIndexEntry } from '../../keys/data-files.js';
import { fileId } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import { type Mutation, putRow } from '../../keys/mutation.js';
import { Space } from '../../keys/spaces.js';
import { type Catalog, isStrataError } from '../../src/index.js';
import { logHead, rewriteEntry } from '../support/store-log.js';
import { openCatalog, tempDir } from '../helpers.js';

const spec = (p: string) => ({ path: p, recordCount: 1, fileSizeBytes: 1 });
const COLUMNS = [{ name: 'x', type: 'int32' }];

/**
 * Every entry of the log rewritten as a writer before decisions 0067 and 0068 wrote it: each path's
 * references become its value of every id named so far (each commit read the value and put it back with its
 * own ids added), and each run of ids an entry per file.
 */
async function asBeforeTheChange(root: string): Promise<{ paths: number; files: number }> {
  const named = new Map<string, number[]>();
  const rewritten = { paths: 0, files: 0 };
  for (let seq = 1, head = await logHead(root); seq <= head; seq++) {
    await rewriteEntry(root, seq, (entry) => {
      const touched = new Set<string>();
      const mutations: Mutation[] = [];
      for (const m of entry.mutations) {
        if (m.key[0] === Space.FileIdRange && m.type === 'put') {
          const { first, lastId, tableId, begin } = decodeIdRange(m.key, m.value);
          for (let id = first; id <= lastId; id++, rewritten.files++) mutations.push(putRow(encodeKey(Space.FileTableIndex, [id], begin), { tableId }));
          continue;
        }
        if (m.key[0] !== Space.FilePathRef) {
          mutations.push(m);
          continue;
        }
        expect(m.type).toBe('put');
        const { path: p, id } = decodePathRef(m.key);
        (named.get(p) ?? named.set(p, []).get(p)!).push(id);
        touched.add(p);
      }
      for (const p of touched) mutations.push(pathIndexEntry(p, named.get(p)!.map(fileId)));
      rewritten.paths += touched.size;
      return { ...entry, mutations };
    });
  }
  return rewritten;
}

const objectPath = (dir: string, p: string) => path.join(dir, 'store', 'data', p);

async function writeObjects(dir: string, paths: string[]): Promise<void> {
  for (const p of paths) {
    await mkdir(path.dirname(objectPath(dir, p)), { recursive: true });
    await writeFile(objectPath(dir, p), 'x');
  }
}

async function added(c: Catalog, table: string, paths: string[]): Promise<number[]> {
  let ids: number[] = [];
  await c.transaction(async (tx) => {
    ids = await tx.addDataFiles('main', table, paths.map(spec));
  });
  return ids;
}

async function removeAndExcise(c: Catalog, table: string, ids: number[]): Promise<number> {
  await c.transaction(async (tx) => {
    for (const id of ids) await tx.removeDataFile('main', table, id);
  });
  await c.advanceRetainFrom({ snapshot: (await c.snapshots()).at(-1)!.id });
  return (await c.excise()).files;
}

describe('the indexes of files written before decisions 0067 and 0068 and since', () => {
  it('a history holding both forms reads, excises and reclaims as either: nothing a row names is deleted, and verify finds nothing', async () => {
    const dir = await tempDir();
    await writeObjects(dir, ['a.parquet', 'b.parquet', 'c.parquet']);
    let c = await openCatalog({ dir, checkpointEvery: 0 });
    await c.transaction((tx) => tx.createTable('main', 't', COLUMNS));
    const [a1, b1, c1, a2] = [
      ...(await added(c, 't', ['a.parquet', 'b.parquet'])),
      ...(await added(c, 't', ['c.parquet'])),
      // The same path under a second id, as a restore registers it.
      ...(await added(c, 't', ['a.parquet'])),
    ];
    await c.close();

    // The old form, and an index rebuilt from it.
    const root = path.join(dir, 'store');
    expect(await asBeforeTheChange(root)).toEqual({ paths: 4, files: 4 });
    await rm(path.join(dir, 'index'), { recursive: true });
    c = await openCatalog({ dir, checkpointEvery: 0 });
    expect((await c.verify()).violations).toEqual([]);

    // A path named before the change, named again since; a data file of each form is known as its table's.
    await c.transaction((tx) => tx.createTable('main', 't2', COLUMNS));
    const [b2] = await added(c, 't2', ['b.parquet']);
    expect((await c.verify()).violations).toEqual([]);
    for (const [id, table, owner] of [[a1!, 't2', 't'], [b2!, 't', 't2']] as const) {
      let refused: unknown;
      await c.transaction(async (tx) => {
        refused = await tx.addDeleteFile('main', table, { dataFileId: id, path: `d${id}.parquet`, deleteCount: 1, fileSizeBytes: 1 }).catch((e: unknown) => e);
      });
      expect(isStrataError(refused, 'INVALID_ARGUMENT'), String(refused)).toBe(true);
      expect((refused as Error).message).toContain(`data file ${id} belongs to table "${owner}"`);
    }

    // One file of a, named twice before the change, and b's of before go: another file names each still.
    expect(await removeAndExcise(c, 't', [a1!, b1!])).toBe(0);
    expect((await c.verify()).violations).toEqual([]);
    expect((await c.reclaimFiles({ graceMs: 0 })).deleted).toEqual([]);

    // a's other file, c's of before and b's of since: none is named now.
    expect(await removeAndExcise(c, 't', [a2!, c1!])).toBe(2);
    expect(await removeAndExcise(c, 't2', [b2!])).toBe(1);
    expect((await c.verify()).violations).toEqual([]);
    expect((await c.reclaimFiles({ graceMs: 0 })).deleted.sort()).toEqual(['a.parquet', 'b.parquet', 'c.parquet']);
    expect(['a', 'b', 'c'].some((p) => existsSync(objectPath(dir, `${p}.parquet`)))).toBe(false);

    // And the index rebuilt from this whole history agrees.
    await c.close();
    await rm(path.join(dir, 'index'), { recursive: true });
    c = await openCatalog({ dir, checkpointEvery: 0 });
    expect((await c.verify()).violations).toEqual([]);
    await c.close();
  });
});
