// A statement that needs more memory than DuckDB's limit: OUT_OF_MEMORY, saying which limit and how to raise
// it (Catalog.open's sql.memoryLimit, not DuckDB's SET, which the catalog's instance refuses), and nothing of it
// committed — not INVALID_ARGUMENT, which would blame a statement that is fine.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/index.js';
import { openCatalog, tempDir } from '../helpers.js';

describe('a statement past the memory limit', () => {
  it('is OUT_OF_MEMORY naming sql.memoryLimit, and commits nothing', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    const big = await openCatalog({ dir });
    await big.sql('CREATE TABLE t (id BIGINT, s VARCHAR)');
    await big.sql(`INSERT INTO t SELECT i, repeat('x', 40) || i FROM range(1000000) r(i)`);
    await big.close();
    const c = await openCatalog({ dir, sql: { memoryLimit: 32 * 2 ** 20 } });
    const before = (await c.snapshots()).length;
    const e = await c.sql('DELETE FROM t WHERE id % 100 = 7').catch((x: unknown) => x);
    expect(isStrataError(e, 'OUT_OF_MEMORY'), String(e)).toBe(true);
    expect((e as Error).message).toMatch(/sql: \{ memoryLimit \}/);
    expect((e as Error).message).toMatch(/limit of 32(\.0)? MiB/);
    expect((await c.snapshots()).length).toBe(before);
    expect((await c.sql('SELECT count(*) AS n FROM t')).rows).toEqual([{ n: 1000000n }]);
  });
});
