// A commit never gives a new object an id another object holds: defence in depth behind the snapshot counters
// and the id horizon, which a damaged store (or, before, a DuckLake import) could put behind the ids in use.
// The catalog here is broken through its log, as a buggy writer could break it, and then asked for new objects.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { columnEntity } from '../../keys/columns.js';
import { catalogId, columnId, kvSeq, snapshotId } from '../../keys/ids.js';
import { type Mutation, putRow } from '../../keys/mutation.js';
import { snapshotKey } from '../../keys/snapshots.js';
import { putIdHorizon } from '../../keys/system.js';
import { type Catalog, isStrataError } from '../../src/index.js';
import { withStoreLog } from '../support/store-log.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';

/** Appends an entry to the store's log as a writer would (numbered and chained after the newest one). */
async function forge(dir: string, mutations: Mutation[]): Promise<void> {
  await withStoreLog(path.join(dir, 'store'), async (log) => {
    const head = await log.head(kvSeq(0));
    const prev = (await log.read(head))!;
    expect(await log.append({ seq: kvSeq(head + 1), kind: 'system', epoch: 0, txn: `forged-${head + 1}`, prev: prev.txn, snapshots: [], mutations })).toBe(true);
  });
}

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

/** A catalog holding a schema, a table, a view, a data file and a delete file, closed, with its head snapshot. */
async function holding(dir: string) {
  const c = await openCatalog({ dir, checkpointEvery: 0 });
  const held: Record<string, number> = {};
  await c.transaction(async (tx) => {
    held.schema = await tx.createSchema('s');
    held.table = await tx.createTable('s', 't', [{ name: 'id', type: 'int64' }]);
    held.view = await tx.createView('s', 'v', 'SELECT 1');
    held.dataFile = await tx.addDataFile('s', 't', { path: 't/f0.parquet', recordCount: 5, fileSizeBytes: 100 });
    held.deleteFile = await tx.addDeleteFile('s', 't', { dataFileId: held.dataFile, path: 't/d0.parquet', deleteCount: 1, fileSizeBytes: 10 });
  });
  // Ids came from the first blocks, in order: the next writer's blocks start where the counters say.
  expect(held).toEqual({ schema: 1, table: 2, view: 3, dataFile: 0, deleteFile: 1 });
  const head = (await c.snapshots()).at(-1)!;
  const before = await dumpCatalog(c);
  await c.close();
  /** Puts the head's counters and the id horizon back to these, as a faulty writer could. */
  const behind = (catalog: number, file: number) =>
    forge(dir, [
      putRow(snapshotKey(head.id), { time: head.time.getTime(), schemaVersion: head.schemaVersion, nextCatalogId: catalog, nextFileId: file }),
      putIdHorizon({ catalog, file }),
    ]);
  return { held, before, behind };
}

describe('ids of new objects', () => {
  it('a commit that would give a new schema, table or view an id in use fails CORRUPT naming the id and its holder, and commits nothing', async () => {
    const dir = await tempDir();
    const { held, before, behind } = await holding(dir);
    await behind(1, 2);
    const c = await openCatalog({ dir, checkpointEvery: 0 });
    // Each refused operation used the next id of the block, so each of these meets another kind of object.
    const attempts: [string, (c: Catalog) => Promise<unknown>, number, string][] = [
      ['table', (x) => x.transaction((tx) => tx.createTable('s', 't2', [{ name: 'x', type: 'int32' }])), held.schema!, 'a schema'],
      ['view', (x) => x.transaction((tx) => tx.createView('s', 'v2', 'SELECT 2')), held.table!, 'a table'],
      ['schema', (x) => x.transaction((tx) => tx.createSchema('s3')), held.view!, 'a view'],
    ];
    for (const [what, attempt, id, holder] of attempts) {
      const e = await failure(attempt(c));
      expect(isStrataError(e, 'CORRUPT'), `${what}: ${String(e)}`).toBe(true);
      expect((e as Error).message, what).toContain(`new ${what} would get ${what} id ${id}, which ${holder} already holds`);
    }
    // Nothing was committed: every snapshot reads as before (the forged entry made no snapshot).
    expect(await dumpCatalog(c)).toEqual(before);
  });

  it("a new table whose id has columns already (another table's) is refused, and commits nothing", async () => {
    const dir = await tempDir();
    const { before, behind } = await holding(dir);
    await behind(4, 2);
    // Columns under table id 4 with no table: what the next table would take as its own.
    await forge(dir, [columnEntity(catalogId(4), columnId(1)).create(snapshotId(1), { name: 'ghost', type: 'int64', order: 1, nullsAllowed: true, defaultValue: null, parentColumn: null })]);
    const c = await openCatalog({ dir, checkpointEvery: 0 });
    const e = await failure(c.transaction((tx) => tx.createTable('s', 't2', [{ name: 'x', type: 'int32' }])));
    expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
    expect((e as Error).message).toContain('new table would get table id 4, which columns of another table already holds');
    expect(await dumpCatalog(c)).toEqual(before);
  });

  it('a writer whose block of file ids would hold a data file in use is refused before it hands one out, and commits nothing', async () => {
    const dir = await tempDir();
    const { held, before, behind } = await holding(dir);
    await behind(4, 0);
    const c = await openCatalog({ dir, checkpointEvery: 0 });
    const e = await failure(c.transaction((tx) => tx.addDataFile('s', 't', { path: 't/f1.parquet', recordCount: 1, fileSizeBytes: 10 })));
    expect(isStrataError(e, 'CORRUPT'), String(e)).toBe(true);
    expect((e as Error).message).toContain(`data file id ${held.dataFile} is in use`);
    expect(await dumpCatalog(c)).toEqual(before);
  });
});
