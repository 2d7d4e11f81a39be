// The index seal on a read-only disk: opening an index writes to it (its seal goes, LevelDB locks and logs),
// so an index there is refused at once, saying where it can go instead — and going there works.
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog, isStrataError } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { canMountReadOnly, whileReadOnly } from '../support/read-only-mount.js';

describe.skipIf(!canMountReadOnly)('an index on a read-only disk (skipped where this process may not mount)', () => {
  it('sealed or not, is STORE_UNAVAILABLE naming it and the way out; the store read from there with an index elsewhere', async () => {
    const dir = await tempDir();
    const c = await Catalog.open({ dir });
    await c.sql('CREATE TABLE t (i BIGINT)');
    await c.sql('INSERT INTO t VALUES (1), (2)');
    await c.close();
    for (const sealed of [true, false]) {
      if (!sealed) rmSync(path.join(dir, 'index', 'STRATA-SEAL'));
      await whileReadOnly(dir, async () => {
        for (const readOnly of [true, false]) {
          const e = await Catalog.open({ dir, readOnly }).then(
            async (opened) => {
              await opened.close();
              return undefined;
            },
            (x: unknown) => x,
          );
          expect(isStrataError(e, 'STORE_UNAVAILABLE'), String(e)).toBe(true);
          expect((e as Error).message).toMatch(new RegExp(`^the local index at ${path.join(dir, 'index')} cannot be written: the file system is mounted read-only\\. .*put it in a writable directory .*readOnly: true`));
        }
        const elsewhere = await Catalog.open({ dir: await tempDir(), store: { path: path.join(dir, 'store') }, readOnly: true });
        expect((await elsewhere.sql('SELECT sum(i) AS s FROM t')).rows).toEqual([{ s: 3n }]);
        await elsewhere.close();
      });
    }
  });
});
