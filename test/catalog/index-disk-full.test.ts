// A disk that fills up (a real tmpfs of 2 MiB, mounted for the test; skipped where this process may not
// mount one, failed there under CI) under the local index or under the store. A commit is done once its log entry is in the store.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Catalog, isStrataError } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { machineHas } from '../support/machine.js';
import { logHead, withStoreLog } from '../support/store-log.js';
import { kvSeq } from '../../keys/ids.js';

function mountSmallDisk(at: string): boolean {
  mkdirSync(at, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', at]).status === 0;
}

const probe = path.join(process.env.TMPDIR ?? '/tmp', `strata-mount-probe-${process.pid}`);
const canMount = machineHas(
  'a tmpfs mount',
  mountSmallDisk(probe) && spawnSync('umount', [probe]).status === 0,
  'run as root with CAP_SYS_ADMIN (a container: --cap-add SYS_ADMIN or --privileged), with mount and umount on the PATH',
);
rmSync(probe, { recursive: true, force: true });

/** Fills the disk holding `dir` until a write fails with ENOSPC; returns the filler's path. */
function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  const block = Buffer.alloc(16 << 10, 1);
  for (;;) {
    try {
      appendFileSync(filler, block);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOSPC') return filler;
      throw e;
    }
  }
}

async function paths(c: Catalog): Promise<string[]> {
  const r = await c.reader();
  try {
    return (await r.dataFiles('main', 't')).map((f) => f.path);
  } finally {
    await r.close();
  }
}

const files = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}.parquet`);

/** Runs `body` with a fresh temporary directory and a 2 MiB disk mounted in it, unmounted afterwards. */
async function withSmallDisk(body: (root: string, small: string) => Promise<void>): Promise<void> {
  const root = await tempDir();
  const small = path.join(root, 'small');
  expect(mountSmallDisk(small)).toBe(true);
  try {
    await body(root, small);
  } finally {
    spawnSync('umount', ['-l', small]);
  }
}

describe.skipIf(!canMount)('a full disk', () => {
  it('the commit that reached the store is acknowledged; reads fail until the catalog is reopened with room; nothing is committed twice', { timeout: 60_000 }, async () => {
    await withSmallDisk(async (root, small) => {
      const store = { path: path.join(root, 'store') };
      const dir = path.join(small, 'catalog');
      const c = await Catalog.open({ dir, store, checkpointEvery: 0 });
      await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
      await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'a.parquet', recordCount: 1, fileSizeBytes: 10 }));
      const filler = fill(small);

      // Large enough to need disk the index no longer has.
      const added = files('b', 200);
      const { snapshot } = await c.transaction(async (tx) => {
        for (const p of added) await tx.addDataFile('main', 't', { path: p, recordCount: 1, fileSizeBytes: 10 });
      });
      expect(snapshot).toBe(3);
      // The entry's index batch lands after the commit returns (src/kv/unlanded.ts): a read before it fails
      // is served with the commit from memory; once it has failed, it is reported and reads fail.
      await vi.waitFor(() => expect(c.followStatus().lastError?.code).toBe('STORE_UNAVAILABLE'), { timeout: 10_000 });
      await expect(c.reader()).rejects.toSatisfy((e) => isStrataError(e, 'STORE_UNAVAILABLE') && /local index/.test(e.message));
      // The next commit writes nothing: it would have to come after the entry its index cannot take.
      await expect(c.transaction((tx) => tx.addDataFile('main', 't', { path: 'x.parquet', recordCount: 1, fileSizeBytes: 10 }))).rejects.toSatisfy(
        (e) => isStrataError(e, 'STORE_UNAVAILABLE'),
      );

      // Another machine sees the acknowledged commit, once.
      const other = await Catalog.open({ dir: path.join(root, 'other'), store, checkpointEvery: 0 });
      expect(await paths(other)).toEqual(['a.parquet', ...added]);
      await other.close();

      await c.close();
      rmSync(filler);
      const again = await Catalog.open({ dir, store, checkpointEvery: 0 });
      expect(await paths(again)).toEqual(['a.parquet', ...added]);
      await again.transaction((tx) => tx.addDataFile('main', 't', { path: 'c.parquet', recordCount: 1, fileSizeBytes: 10 }));
      expect(await paths(again)).toEqual(['a.parquet', ...added, 'c.parquet']);
      await again.close();
    });
  });

  it('under the store: the commit fails with STORE_UNAVAILABLE, writes nothing and leaves no temporary file; with room again, commits go on', { timeout: 60_000 }, async () => {
    await withSmallDisk(async (root, small) => {
      const store = { path: path.join(small, 'store') };
      const dir = path.join(root, 'index');
      const c = await Catalog.open({ dir, store, checkpointEvery: 0 });
      await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
      const before = await logHead(path.join(small, 'store'));
      const filler = fill(small);

      // More than the log's tail has written ahead (1 MiB), so the record must grow the file.
      const added = files('b', 12_000);
      await expect(
        c.transaction(async (tx) => {
          for (const p of added) await tx.addDataFile('main', 't', { path: p, recordCount: 1, fileSizeBytes: 10 });
        }),
      ).rejects.toSatisfy((e) => isStrataError(e, 'STORE_UNAVAILABLE') && /ENOSPC|no space/i.test(e.message));
      // Nothing of the commit: at most the claims of ids made for it (a segment's last block may still have
      // room for those small records when no new file can be made).
      const after = await withStoreLog(path.join(small, 'store'), async (log) => {
        const kinds: string[] = [];
        for await (const e of log.readAfter(kvSeq(before))) kinds.push(e.kind);
        return kinds;
      });
      expect(after.filter((k) => k !== 'system')).toEqual([]);
      expect(await paths(c)).toEqual([]);

      rmSync(filler);
      await c.transaction((tx) => tx.addDataFile('main', 't', { path: 'c.parquet', recordCount: 1, fileSizeBytes: 10 }));
      expect(await paths(c)).toEqual(['c.parquet']);
      await c.close();
      const other = await Catalog.open({ dir: path.join(root, 'other'), store, checkpointEvery: 0 });
      expect(await paths(other)).toEqual(['c.parquet']);
      await other.close();
    });
  });
});
