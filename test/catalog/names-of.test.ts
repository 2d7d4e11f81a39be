// Reader.namesOf: what catalog ids named at a snapshot, looked up one id at a time, against what listing
// every schema, table and view at that snapshot says — through creates, a rename, a table moved out by a
// drop and made again under its old name, a view, a dropped schema.
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/index.js';
import { expectCode, openCatalog } from '../helpers.js';

const cols = [{ name: 'a', type: 'int32' }];

/** Every live id at `snapshot` and its name, from the listings alone. */
async function listed(c: Catalog, snapshot: number): Promise<Map<number, string>> {
  const r = await c.reader({ snapshot });
  try {
    const out = new Map<number, string>();
    for (const s of await r.schemas()) {
      out.set(s.id, s.name);
      for (const t of await r.tables(s.name)) out.set(t.id, `${s.name}.${t.name}`);
      for (const v of await r.views(s.name)) out.set(v.id, `${s.name}.${v.name}`);
    }
    return out;
  } finally {
    await r.close();
  }
}

describe('Reader.namesOf', () => {
  it('names each id as the listings at every snapshot do, and leaves out what was not live', async () => {
    const c = await openCatalog();
    await c.transaction(async (tx) => {
      await tx.createSchema('sales');
      await tx.createTable('sales', 'orders', cols);
      await tx.createTable('main', 'events', cols);
    });
    await c.transaction((tx) => tx.createView('sales', 'big', 'SELECT * FROM sales.orders WHERE a > 10'));
    await c.transaction((tx) => tx.renameTable('sales', 'orders', 'orders_old'));
    await c.transaction((tx) => tx.createTable('sales', 'orders', cols));
    await c.transaction((tx) => tx.dropTable('main', 'events'));
    await c.transaction(async (tx) => {
      await tx.createSchema('tmp');
      await tx.createTable('tmp', 'scratch', cols);
    });
    await c.transaction((tx) => tx.dropSchema('tmp', { cascade: true }));

    const snapshots = (await c.snapshots()).map((s) => s.id);
    const everyId = new Set<number>();
    for (const s of snapshots) for (const id of (await listed(c, s)).keys()) everyId.add(id);
    expect(everyId.size).toBeGreaterThanOrEqual(8);
    const asked = [...everyId, 999_999];
    for (const s of snapshots) {
      const r = await c.reader({ snapshot: s });
      try {
        expect(await r.namesOf(asked)).toEqual(await listed(c, s));
        expect(await r.namesOf([])).toEqual(new Map());
      } finally {
        await r.close();
      }
    }
  });

  it('refuses what is not a list of ids, naming the one that is not', async () => {
    const c = await openCatalog();
    const r = await c.reader();
    await expectCode(r.namesOf([0, -1]), 'INVALID_ARGUMENT', /namesOf\(\) ids\[1\]/);
    await expectCode(r.namesOf([1.5]), 'INVALID_ARGUMENT', /ids\[0\]/);
    await expectCode(r.namesOf('12' as unknown as number[]), 'INVALID_ARGUMENT', /array of catalog ids/);
    // eslint-disable-next-line no-sparse-arrays
    await expectCode(r.namesOf([, 0] as number[]), 'INVALID_ARGUMENT', /ids\[0\]/);
    await expectCode(r.namesOf(new Array<number>(2)), 'INVALID_ARGUMENT', /ids\[0\]/);
    expect(await r.namesOf([0, 0])).toEqual(new Map([[0, 'main']]));
    await r.close();
  });
});
