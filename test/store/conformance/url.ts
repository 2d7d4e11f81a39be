import { describe, expect, it } from 'vitest';
import type { StoreSuite } from './common.js';

export function url({ make }: StoreSuite): void {
  describe('url', () => {
    // DuckDB is handed these: two keys behind one url would read one table's file as another's.
    it('names each object by its key: one url per key, each ending with the key', async () => {
      const s = await make();
      const keys = ['data/a.parquet', 'data/a/b.parquet', 'data/ab.parquet', 'log/00000000000000000001'];
      const urls = keys.map((k) => s.url(k));
      expect(new Set(urls).size).toBe(keys.length);
      keys.forEach((k, i) => expect(urls[i]!.endsWith(`/${k}`), urls[i]).toBe(true));
    });
  });
}
