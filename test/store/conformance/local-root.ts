import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytes, type StoreSuite } from './common.js';

/** Only for stores that support localRoot: DuckDB and the segmented log read the files themselves. */
export function localRoot({ make }: StoreSuite): void {
  describe('localRoot', () => {
    it('each object is the file at url(key), under localRoot, holding its bytes', async () => {
      const s = await make();
      await s.putIfAbsent('data/a/b.parquet', bytes('parquet'));
      const file = s.url('data/a/b.parquet');
      expect(file).toBe(path.join(s.localRoot!, 'data', 'a', 'b.parquet'));
      expect(await readFile(file, 'utf8')).toBe('parquet');
    });
  });
}
