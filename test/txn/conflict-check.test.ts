// The conflict check past the rules table (conflict-rules.test.ts): what a transaction's own side is made of
// (`ownFootprint`: which schemas it creates in, which it drops, which data files it deletes from, whether it
// restores), each kind of change that must NOT count beside the one that must — a change too many reports a
// conflict that is not one, a change too few lets a lost write through — and the check's walk over every
// commit since the base and over the files they touched.
import { describe, expect, it } from 'vitest';
import { catalogId, fileId, snapshotId } from '../../keys/ids.js';
import { isStrataError, type Transaction } from '../../src/index.js';
import { footprintOf, ownFootprint } from '../../src/txn/conflicts.js';
import type { PendingState } from '../../src/txn/pending.js';
import { openCatalog } from '../helpers.js';

const version = <T>(row: T) => ({ begin: snapshotId(1), row });
const relation = (schemaId: number) => ({ schemaId: catalogId(schemaId) });

/** The parts of a pending state `ownFootprint` reads; the others are no part of the conflict check. */
function state(parts: Partial<Record<'schemas' | 'tables' | 'views' | 'dataFiles' | 'deleteFiles', Map<number, unknown>>> & Partial<Pick<PendingState, 'ops' | 'restoredTables'>>): PendingState {
  const empty = new Map();
  return {
    schemas: parts.schemas ?? empty,
    tables: parts.tables ?? empty,
    views: parts.views ?? empty,
    dataFiles: parts.dataFiles ?? empty,
    deleteFiles: parts.deleteFiles ?? empty,
    restoredTables: parts.restoredTables ?? new Set(),
    ops: parts.ops ?? [],
  } as unknown as PendingState;
}

describe('footprintOf', () => {
  it('ignores kinds of change it does not know, as DuckLake does, and reads the ones it knows beside them', () => {
    const f = footprintOf(['merged_into_table:5', 'inserted_into_table:6', 'created_table:"s"."t"']);
    expect([...f.insertedTables]).toEqual([6]);
    expect([...f.createdRelations]).toEqual(['"s"."t"']);
  });
});

describe('ownFootprint', () => {
  it('creates in the schemas of the tables and views it creates, not of those it alters or creates and drops again', () => {
    const own = ownFootprint(
      state({
        tables: new Map([
          [10, { base: undefined, next: relation(3) }],
          [11, { base: version(relation(4)), next: relation(4) }],
          [12, { base: undefined, next: null }],
        ]),
        views: new Map([
          [20, { base: undefined, next: relation(5) }],
          [21, { base: version(relation(6)), next: relation(6) }],
        ]),
      }),
      [],
    );
    expect([...own.createdInSchemas].sort()).toEqual([3, 5]);
  });

  it('drops the schemas it drops, by name, and none it creates or alters', () => {
    const own = ownFootprint(
      state({
        schemas: new Map([
          [3, { base: version({ name: 's' }), next: null }],
          [4, { base: undefined, next: { name: 'new' } }],
          [5, { base: version({ name: 'old' }), next: { name: 'renamed' } }],
        ]),
      }),
      [],
    );
    expect([...own.droppedSchemaNames]).toEqual([[3, 's']]);
  });

  it('deletes from the base data files it removes or adds a delete file to, not from files it registers or keeps', () => {
    const t = catalogId(7);
    const own = ownFootprint(
      state({
        dataFiles: new Map([
          [1, { tableId: t, base: version({}), next: null }], // removed: counts
          [2, { tableId: t, base: undefined, next: {} }], // registered by this transaction
          [3, { tableId: t, base: version({}), next: {} }], // kept
          [9, { tableId: t, base: version({ recordCount: 1 }), next: { recordCount: 2 } }], // a base file changed
          [5, { tableId: t, base: undefined, next: null }], // registered and removed again by this transaction
        ]),
        deleteFiles: new Map([
          [100, { tableId: t, base: undefined, next: { dataFileId: fileId(4) } }], // on a base file not otherwise touched: counts
          [101, { tableId: t, base: undefined, next: { dataFileId: fileId(2) } }], // on a file this transaction registered
          [102, { tableId: t, base: version({ dataFileId: fileId(5) }), next: null }], // a delete file it drops
          [103, { tableId: t, base: version({ dataFileId: fileId(6) }), next: { dataFileId: fileId(6) } }], // one it keeps
          [104, { tableId: t, base: undefined, next: { dataFileId: fileId(9) } }], // on a base file it changed: counts
          [105, { tableId: t, base: undefined, next: null }], // added and dropped again by this transaction
        ]),
      }),
      [],
    );
    expect(new Map([...own.deletedDataFiles].sort(([a], [b]) => a - b))).toEqual(new Map([[1, t], [4, t], [9, t]]));
  });

  it('restores the catalog only when an op restores the catalog, and the tables it restores', () => {
    const op = (name: string) => ({ name, args: [], result: undefined, ids: {} });
    expect(ownFootprint(state({ ops: [op('createTable'), op('restoreTable')] as never }), []).restoresCatalog).toBe(false);
    expect(ownFootprint(state({ ops: [op('createTable'), op('restoreCatalog')] as never }), []).restoresCatalog).toBe(true);
    expect([...ownFootprint(state({ restoredTables: new Set([catalogId(8)]) }), ['inserted_into_table:1']).restoredTables]).toEqual([8]);
  });
});

describe('findConflict', () => {
  const int = [{ name: 'i', type: 'int32' }];
  const file = (p: string) => ({ path: p, recordCount: 10, fileSizeBytes: 100 });
  const deleteFrom = (dataFileId: number, p: string) => (tx: Transaction) =>
    tx.addDeleteFile('main', 't', { dataFileId: fileId(dataFileId), path: p, deleteCount: 1, fileSizeBytes: 1 });

  /** A table of two data files (a, b), and the snapshot a late transaction was worked out at. */
  async function lake(setup: (tx: Transaction, a: number) => Promise<unknown> = async () => undefined) {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createTable('main', 't', int);
      await tx.addDataFile('main', 't', file('a.parquet'));
      await tx.addDataFile('main', 't', file('b.parquet'));
    });
    const [a, b] = (await (await c.reader()).dataFiles('main', 't')).map((f) => f.id);
    await c.transaction((tx) => setup(tx, a!));
    return { c, a: a!, b: b!, base: (await c.snapshots()).at(-1)!.id };
  }

  it('checks every commit since the base, not only the first: a conflict in the second is found', async () => {
    const { c, a, base } = await lake();
    await c.transaction((tx) => tx.addDataFile('main', 't', file('c.parquet')));
    await c.transaction(deleteFrom(a, 'theirs'));
    const out = await c.transaction(deleteFrom(a, 'ours'), { basedOn: base }).catch((e: Error) => e);
    expect(isStrataError(out, 'CONFLICT'), String(out)).toBe(true);
    expect((out as Error).message).toMatch(/deletes from data file \d+ of table \d+, but another transaction deleted from it/);
    expect((out as Error).message).toMatch(/nothing was written — read the new state and run the transaction again$/);
  });

  it('a delete file older than the base is no conflict: only the delete files the other commit began or ended are', async () => {
    // File a has a delete file from before the base; ours replaces it while theirs deletes from b.
    const { c, a, b, base } = await lake((tx, a) => deleteFrom(a, 'old')(tx));
    await c.transaction(deleteFrom(b, 'theirs'));
    await c.transaction(deleteFrom(a, 'ours'), { basedOn: base });
    expect((await (await c.reader()).deleteFiles('main', 't')).map((d) => d.path).sort()).toEqual(['ours', 'theirs']);
  });
});
