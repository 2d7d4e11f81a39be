// The local index is a cache of the store: damage of any kind ends in a rebuild from the store, never in a
// wrong answer and never in the caller's process dying. Every reopen after damage runs in a child process, so
// that LevelDB aborting on damaged bytes would show as a signal instead of taking the test runner down.
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog, isStrataError } from '../../src/index.js';
import { seeded } from '../support/random.js';
import { runTsx, tempDir } from '../helpers.js';

const dumpChild = new URL('../fixtures/dump-child.ts', import.meta.url);

/** A catalog large enough that LevelDB has written table files (.ldb), not only its write-ahead log. */
async function built(): Promise<{ dir: string; expected: string }> {
  const dir = await tempDir();
  const c = await Catalog.open({ dir, durability: 'relaxed', checkpointEvery: 0 });
  await c.transaction(async (tx) => {
    await tx.createSchema('s');
    await tx.createTable('s', 't', [{ name: 'a', type: 'int64' }]);
  });
  for (let i = 0; i < 12; i++) {
    await c.transaction(async (tx) => {
      for (let f = 0; f < 2000; f++) await tx.addDataFile('s', 't', { path: `part-${i}/file-${String(f).padStart(5, '0')}-with-a-long-name.parquet`, recordCount: f + 1, fileSizeBytes: 1000 + f });
    });
  }
  await c.createTag('kept', 3);
  await c.close();
  return { dir, expected: await dumped(dir) };
}

async function dumped(dir: string): Promise<string> {
  const { signal, stdout } = await runTsx(dumpChild, [dir]);
  expect(signal).toBeNull();
  return stdout;
}

const indexDir = (dir: string) => path.join(dir, 'index');
const filesOfKind = async (dir: string, test: (name: string) => boolean) => (await readdir(indexDir(dir))).filter(test).sort();

/** Flips `count` bytes of a file at seeded random places. */
async function flip(file: string, seed: number, count: number): Promise<void> {
  const bytes = await readFile(file);
  const random = seeded(seed);
  for (let i = 0; i < count; i++) {
    const at = Math.floor(random() * bytes.length);
    bytes[at] = bytes[at]! ^ (1 + Math.floor(random() * 255));
  }
  await writeFile(file, bytes);
}

/** As a process killed without closing leaves its index: no seal. */
const unsealed = (dir: string) => rm(path.join(indexDir(dir), 'STRATA-SEAL'), { force: true });

describe('a damaged local index is rebuilt from the store', () => {
  // Nine child processes, each rebuilding an index of 24,000 files: 22–25 s alone here, past 30 under load.
  it('bytes changed in any of its files while it was closed: every kind of file, several places each', { timeout: 120_000 }, async () => {
    const { dir, expected } = await built();
    expect((await filesOfKind(dir, (n) => n.endsWith('.ldb'))).length).toBeGreaterThan(0);
    // A rebuild writes new files, so each round picks its victim among the files there are now.
    const kinds: ((n: string) => boolean)[] = [(n) => n.endsWith('.ldb'), (n) => n.startsWith('MANIFEST-'), (n) => n === 'CURRENT', (n) => n.endsWith('.log')];
    for (const [i, kind] of [...kinds, ...kinds].entries()) {
      const [victim] = await filesOfKind(dir, kind);
      await flip(path.join(indexDir(dir), victim!), 1000 + i, 1 + (i % 3));
      expect(await dumped(dir)).toEqual(expected);
    }
  });

  it('damaged table files in an index that was not closed cleanly (checked in a child process, then rebuilt)', async () => {
    const { dir, expected } = await built();
    for (const seed of [1, 2, 3]) {
      const [table] = await filesOfKind(dir, (n) => n.endsWith('.ldb'));
      await flip(path.join(indexDir(dir), table!), seed, 20);
      await unsealed(dir);
      expect(await dumped(dir)).toEqual(expected);
    }
  });

  it("a damaged write-ahead log in an index that was not closed cleanly: LevelDB's recovery skips what fails its checksum, and the index is rebuilt rather than served without it", async () => {
    const dir = await tempDir();
    const c = await Catalog.open({ dir, checkpointEvery: 0 });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'a', type: 'int64' }]));
    for (let i = 0; i < 160; i++) await c.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}.parquet`, recordCount: 1, fileSizeBytes: 1 }));
    await c.close();
    // The expected answers from an untouched copy: opening this one would move its log into a table file.
    const copy = await tempDir();
    await cp(dir, copy, { recursive: true });
    const expected = await dumped(copy);
    const [wal] = await filesOfKind(dir, (n) => n.endsWith('.log'));
    const bytes = await readFile(path.join(indexDir(dir), wal!));
    // LevelDB's log is written in 32 KiB blocks and recovery drops the rest of a block after a damaged record,
    // then reads on from the next block: damage in the first block of a longer log loses batches from the
    // middle, while the last batch (and the applied sequence it wrote) survives.
    expect(bytes.length).toBeGreaterThan(64 * 1024);
    bytes.fill(0, 4000, 4064);
    await writeFile(path.join(indexDir(dir), wal!), bytes);
    await unsealed(dir);
    expect(await dumped(dir)).toEqual(expected);
  });

  it('a missing MANIFEST, a missing CURRENT, an index directory that is not an index, and no index at all', async () => {
    const { dir, expected } = await built();
    for (const name of await filesOfKind(dir, (n) => n.startsWith('MANIFEST-'))) await rm(path.join(indexDir(dir), name));
    expect(await dumped(dir)).toEqual(expected);
    await rm(path.join(indexDir(dir), 'CURRENT'));
    await unsealed(dir);
    expect(await dumped(dir)).toEqual(expected);
    // A directory of files LevelDB never wrote, as a careless copy or a mistyped --dir leaves.
    await rm(indexDir(dir), { recursive: true });
    await mkdir(path.join(indexDir(dir), 'notes'), { recursive: true });
    await writeFile(path.join(indexDir(dir), 'README.txt'), 'not an index');
    expect(await dumped(dir)).toEqual(expected);
    await rm(indexDir(dir), { recursive: true });
    expect(await dumped(dir)).toEqual(expected);
  });

  it('a file where the index directory goes is refused with a code and a way out, and left as it was', async () => {
    const dir = await tempDir();
    const c = await Catalog.open({ dir });
    await c.transaction((tx) => tx.createTable('main', 't', [{ name: 'a', type: 'int64' }]));
    await c.close();
    await rm(indexDir(dir), { recursive: true });
    await writeFile(indexDir(dir), 'not a directory at all');
    const refused = await Catalog.open({ dir }).then(
      (opened) => opened.close(),
      (e: unknown) => e,
    );
    expect(isStrataError(refused, 'INVALID_ARGUMENT')).toBe(true);
    expect((refused as Error).message).toContain(indexDir(dir));
    expect((refused as Error).message).toMatch(/is a file, not a directory.*Move it away/);
    // Strata did not make that file, so it does not remove it: the caller moves it and the index is rebuilt.
    expect(await readFile(indexDir(dir), 'utf8')).toBe('not a directory at all');
    await rm(indexDir(dir));
    const reopened = await Catalog.open({ dir });
    expect((await reopened.snapshots()).length).toBe(2);
    await reopened.close();
  });

  it('a sound index closed cleanly is opened as it is, without a rebuild', async () => {
    const { dir, expected } = await built();
    const before = await filesOfKind(dir, () => true);
    expect(await dumped(dir)).toEqual(expected);
    // A rebuild would have replaced the table files with new ones (new numbers).
    const after = await filesOfKind(dir, (n) => n.endsWith('.ldb'));
    expect(after.filter((n) => before.includes(n)).length).toBeGreaterThan(0);
  });
});
