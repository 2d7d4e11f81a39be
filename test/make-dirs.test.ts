// Making directories: what cannot be made says why and what to do (a file in the way, a read-only disk).
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirs } from '../src/make-dirs.js';
import { tempDir } from './helpers.js';
import { canMountReadOnly, whileReadOnly } from './support/read-only-mount.js';

describe('makeDirs', () => {
  it('a file where a directory above must be is INVALID_ARGUMENT naming the file, however far below it the directory is', async () => {
    const root = await tempDir();
    const file = path.join(root, 'notes.txt');
    writeFileSync(file, 'x');
    for (const dir of [path.join(file, 'a'), path.join(file, 'a', 'b', 'c')]) {
      expect(() => makeDirs(dir), dir).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT', message: `cannot make directory ${dir}: ${file} is a file, not a directory; give a path where a directory can be made` }),
      );
    }
  });

  it.skipIf(!canMountReadOnly)('on a read-only disk it is STORE_UNAVAILABLE saying so (skipped where this process may not mount)', async () => {
    const root = await tempDir();
    mkdirSync(path.join(root, 'ro'));
    await whileReadOnly(path.join(root, 'ro'), async () => {
      expect(() => makeDirs(path.join(root, 'ro', 'a', 'b'))).toThrow(
        expect.objectContaining({ code: 'STORE_UNAVAILABLE', message: expect.stringMatching(/ro\/a: the file system is mounted read-only; give a directory on a disk this process can write to$/) }),
      );
    });
  });
});
