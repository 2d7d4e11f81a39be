// `strata snapshots` names what each change touched as it was named then (src/cli/history.ts). Names change
// only with the schema version, so a page reads them once per version: a rename, a drop and a table created
// again under an old name must still be told apart.
import { describe, expect, it, vi } from 'vitest';
import { changesInWords } from '../src/cli/history.js';
import { openCatalog, steppingClock } from './helpers.js';

describe('changes in words', () => {
  it('names each change as it was then, reading the names once per schema version', async () => {
    const c = await openCatalog({ clock: steppingClock(), checkpointEvery: 0 });
    const cols = [{ name: 'x', type: 'int64' }];
    let n = 0;
    const insert = (table: string) => c.transaction((tx) => tx.addDataFile('main', table, { path: `f${n++}.parquet`, recordCount: 1, fileSizeBytes: 10 }));
    await c.transaction((tx) => tx.createTable('main', 'a', cols));
    await insert('a');
    await insert('a');
    await c.transaction((tx) => tx.renameTable('main', 'a', 'b'));
    await insert('b');
    await c.transaction((tx) => tx.dropTable('main', 'b'));
    await c.transaction((tx) => tx.createTable('main', 'a', cols));
    await insert('a');
    const snapshots = (await c.snapshots()).slice(1);
    const readers = vi.spyOn(c, 'reader');
    const words = await changesInWords(c, snapshots);
    expect(snapshots.map((s) => words.get(s.id)!.join('; '))).toEqual([
      'created table "main"."a"',
      'inserted into main.a',
      'inserted into main.a',
      'renamed main.a to main.b',
      'inserted into main.b',
      'dropped table main.b',
      'created table "main"."a"',
      'inserted into main.a',
    ]);
    // Schema versions 1 (the inserts into a, and the names before the rename), 2 (the rename, the insert into
    // b, the names before the drop) and 4 (the insert into the new a): one reader each.
    expect(readers).toHaveBeenCalledTimes(3);
  });
});
