// An index not closed cleanly (no seal) is read in a child process before this one opens it (index-check.ts).
// The child runs in another working directory, so the path it is given must not depend on this one's.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KvStore } from '../../src/kv/kv-store.js';
import { tempDir } from '../helpers.js';

describe('an unsealed index', () => {
  it('opened by a path relative to the working directory is checked and kept, not taken for damage and rebuilt', async () => {
    const dir = path.join(await tempDir(), 'index');
    await (await KvStore.open(dir)).close();
    rmSync(path.join(dir, 'STRATA-SEAL'));
    writeFileSync(path.join(dir, 'KEPT'), '');
    const relative = path.relative(process.cwd(), dir);
    expect(path.isAbsolute(relative)).toBe(false);
    const kv = await KvStore.open(relative);
    try {
      expect(kv.damage).toBeUndefined();
      expect(existsSync(path.join(dir, 'KEPT'))).toBe(true);
    } finally {
      await kv.close();
    }
  });
});
