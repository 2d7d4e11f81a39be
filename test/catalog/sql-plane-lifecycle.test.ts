// The SQL plane a catalog loads when first used (decision 0050): a read-only catalog makes it at its first
// statement, so a statement started as the catalog closes must not make one that nothing closes; a plane that
// cannot be loaded is an error that says so, and a writable open that fails for it leaves nothing open.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Catalog } from '../../src/index.js';
import { expectCode, tempDir } from '../helpers.js';

async function readOnlyCatalog() {
  const dir = await tempDir();
  const c = await Catalog.open({ dir, create: true });
  await c.sql('CREATE TABLE t (i INTEGER)');
  await c.close();
  return { dir, ro: await Catalog.open({ dir, readOnly: true }) };
}

describe('a read-only catalog\'s SQL plane', () => {
  afterEach(() => {
    vi.doUnmock('../../src/sql/data-plane.js');
    vi.resetModules();
  });

  it('is not made by a stream read after close: the stream says the catalog is closed, and no engine starts', async () => {
    const { dir, ro } = await readOnlyCatalog();
    const stream = ro.sqlBatches('SELECT 42 AS x');
    await ro.close();
    await expectCode(stream.next(), 'INVALID_ARGUMENT', /closed/);
    expect(existsSync(path.join(dir, 'sql-scratch'))).toBe(false);
  });

  it('is not made by a statement begun while the catalog closes, which is refused at once', async () => {
    const { ro } = await readOnlyCatalog();
    const closing = ro.close();
    const started = Date.now();
    await expectCode(ro.sql('SELECT sum(i) FROM range(3000000000) t(i)'), 'INVALID_ARGUMENT', /closed/);
    await closing;
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('is made at the first statement, and a transaction is READ_ONLY without it', async () => {
    const { ro } = await readOnlyCatalog();
    await expectCode(ro.transaction((tx) => tx.createTable('main', 'u', [{ name: 'i', type: 'int32' }])), 'READ_ONLY');
    expect((await ro.sql('SELECT count(*)::INTEGER AS n FROM t')).rows).toEqual([{ n: 0 }]);
    await ro.close();
  });

  it('that cannot be loaded is STORE_UNAVAILABLE saying so; a writable open that fails for it leaves the catalog closed, to be opened again', async () => {
    const dir = await tempDir();
    await (await Catalog.open({ dir, create: true })).close();
    vi.resetModules();
    vi.doMock('../../src/sql/data-plane.js', () => {
      throw new Error('a module missing from this installation');
    });
    // A module graph of its own: its StrataError is not the one helpers.ts knows, so the code is compared.
    const { Catalog: Broken } = await import('../../src/index.js');
    const unloadable = { name: 'StrataError', code: 'STORE_UNAVAILABLE', message: expect.stringMatching(/SQL plane could not be loaded.*install it again/) };
    await expect(Broken.open({ dir })).rejects.toMatchObject(unloadable);
    const ro = await Broken.open({ dir, readOnly: true });
    await expect(ro.sql('SELECT 1')).rejects.toMatchObject(unloadable);
    // Not remembered: the next statement tries again (and fails again here).
    await expect(ro.sql('SELECT 1')).rejects.toMatchObject(unloadable);
    await ro.close();
    vi.doUnmock('../../src/sql/data-plane.js');
    vi.resetModules();
    const { Catalog: Whole } = await import('../../src/index.js');
    const c = await Whole.open({ dir });
    expect((await c.sql('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await c.close();
  });
});
