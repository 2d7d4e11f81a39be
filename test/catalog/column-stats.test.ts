// A reader's column statistics of a table's files: what each file's commit gave it, however the files asked for
// are spread over the ids (a dense run is read in one scan, scattered ones point by point), with gaps, files
// without statistics, other tables' files between, a file asked for twice, and a transaction's own view.
import { describe, expect, it } from 'vitest';
import type { ColumnStats } from '../../src/index.js';
import { openCatalog } from '../helpers.js';

const statsOf = (k: number): ColumnStats[] => [
  { columnId: 1 as never, min: String(k), max: String(k + 9), nullCount: k % 3, valueCount: 10, containsNan: null },
];

describe('column statistics of many files', () => {
  it('are each file\'s own, read in one scan or point by point', async () => {
    const c = await openCatalog();
    await c.sql('CREATE TABLE a (id BIGINT)');
    await c.sql('CREATE TABLE b (id BIGINT)');
    // Files of a and b interleave in id order; every fifth file of a has no statistics.
    const given = new Map<string, ColumnStats[] | undefined>();
    await c.transaction(async (tx) => {
      for (let k = 0; k < 60; k++) {
        const table = k % 4 === 3 ? 'b' : 'a';
        const stats = table === 'a' && k % 5 === 0 ? undefined : statsOf(k);
        given.set(`${table}/${k}.parquet`, stats);
        await tx.addDataFile('main', table, { path: `${table}/${k}.parquet`, recordCount: 10, fileSizeBytes: 100, ...(stats === undefined ? {} : { columnStats: stats }) });
      }
    });
    // Some of a's files end, so a later snapshot's files leave gaps in the ids.
    const early = await c.reader();
    const removed = (await early.dataFiles('main', 'a')).filter((_, i) => i % 7 === 2);
    await c.transaction(async (tx) => {
      for (const f of removed) await tx.removeDataFile('main', 'a', f.id);
    });
    const r = await c.reader();
    const files = await r.dataFiles('main', 'a');
    const expected = (fs: typeof files) => new Map(fs.flatMap((f) => (given.get(f.path) === undefined ? [] : [[f.id, stripped(given.get(f.path)!)]])));
    const asked = async (rd: typeof r, fs: typeof files) => new Map([...(await rd.columnStats('main', 'a', fs))].map(([id, s]) => [id, stripped(s)]));

    expect(files.length).toBeGreaterThan(30);
    expect(await asked(r, files)).toEqual(expected(files));
    expect(await asked(r, [...files].reverse())).toEqual(expected(files));
    expect(await asked(r, [...files, ...files.slice(0, 20)])).toEqual(expected(files));
    for (const f of files.slice(0, 5)) expect(await asked(r, [f])).toEqual(expected([f]));
    // Scattered: every third file, too sparse for one scan.
    const sparse = files.filter((_, i) => i % 3 === 0);
    expect(await asked(r, sparse)).toEqual(expected(sparse));
    // The older reader still sees the removed files' statistics.
    const before = await early.dataFiles('main', 'a');
    expect(await asked(early, before)).toEqual(expected(before));
    await Promise.all([early.close(), r.close()]);
    await c.close();
  });
});

/** The fields a commit gives, as it gave them. */
const stripped = (s: readonly ColumnStats[]) => s.map((c) => ({ columnId: c.columnId, min: c.min, max: c.max, nullCount: c.nullCount, valueCount: c.valueCount }));
