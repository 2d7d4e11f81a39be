// The seal of a closed index: what its LevelDB files were when this process closed it (name, size, CRC-32 of
// the bytes). LevelDB changes its files only while it has them open, so at the next open a seal that still
// matches means the index is exactly what was closed, and one that does not means the bytes changed while
// nobody had them (a disk, an operator, a copy gone wrong): the index is then rebuilt from the store, never
// read. LevelDB does not check its own block checksums on reads (classic-level does not expose
// verify_checksums), and on some damaged bytes it aborts the process instead of failing the call, so
// damage has to be found before LevelDB reads it.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { access, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { StrataError } from '../errors.js';
import { fileSystemProblem } from '../messages.js';

const SEAL = 'STRATA-SEAL';

/** LevelDB's own lock and human-readable logs change on every open and say nothing about the data. */
const UNSEALED = new Set(['LOCK', 'LOG', 'LOG.old', SEAL, `${SEAL}.tmp`]);

interface SealedFile {
  name: string;
  size: number;
  crc: number;
}

/**
 * Each file's name, size and CRC-32, read with synchronous calls into one buffer: an open and a close each
 * seal or check the whole index, and read through streams that cost 7–10 ms on an index of 1.5 MB (a CLI
 * call pays both), against ~1 ms.
 */
async function filesOf(dir: string): Promise<SealedFile[]> {
  const names = (await readdir(dir)).filter((n) => !UNSEALED.has(n)).sort();
  const buffer = Buffer.allocUnsafe(1 << 20);
  return names.map((name) => {
    const fd = openSync(path.join(dir, name), 'r');
    try {
      let crc = 0;
      for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) crc = crc32(buffer.subarray(0, n), crc);
      return { name, size: fstatSync(fd).size, crc };
    } finally {
      closeSync(fd);
    }
  });
}

/** Writes the seal of a closed index (renamed into place: a crash leaves the old state, i.e. no seal). */
export async function seal(dir: string): Promise<void> {
  const tmp = path.join(dir, `${SEAL}.tmp`);
  await writeFile(tmp, JSON.stringify(await filesOf(dir)));
  await rename(tmp, path.join(dir, SEAL));
}

export type SealState = 'none' | 'intact' | 'broken';

/**
 * What the index at `dir` is found as: `none` (no seal: never closed cleanly, or made before seals), `intact`
 * (every file as it was sealed) or `broken`. The seal is removed either way: once LevelDB opens the files
 * they change, and a crash before the next close must not find a stale seal.
 */
export async function unseal(dir: string): Promise<SealState> {
  await assertWritable(dir);
  const file = path.join(dir, SEAL);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw e;
  }
  await rm(file, { force: true });
  try {
    return text === JSON.stringify(await filesOf(dir)) ? 'intact' : 'broken';
  } catch {
    // A file that cannot be read is damage too.
    return 'broken';
  }
}

/**
 * Opening an index writes to it (the seal goes, LevelDB takes its lock and logs), even for a catalog opened
 * read-only: an index that cannot be written is refused before anything is tried, saying where the index can
 * go instead. It is this machine's cache of the store, so any writable directory serves.
 */
async function assertWritable(dir: string): Promise<void> {
  try {
    await access(dir, constants.W_OK);
  } catch (e) {
    const problem = fileSystemProblem(e);
    if (problem === undefined) throw e;
    throw new StrataError(
      'STORE_UNAVAILABLE',
      `the local index at ${dir} cannot be written: ${problem}. The index is this machine's cache of the store, rebuilt from it ` +
        'wherever it is opened: put it in a writable directory (Catalog.open({ dir }), strata --dir) and name the store where it ' +
        'is (store: { path }, --store; by default the store is the directory store beside the index), read-only if the store cannot ' +
        'be written either (readOnly: true, strata --read-only)',
      { cause: e },
    );
  }
}
