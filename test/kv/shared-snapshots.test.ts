import { describe, expect, it } from 'vitest';
import { openCatalog } from '../helpers.js';

describe('views share LevelDB snapshots while nothing is applied', () => {
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
});
