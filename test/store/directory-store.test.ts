import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/errors.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';
import { canMountReadOnly, whileReadOnly } from '../support/read-only-mount.js';
import { objectStoreConformance } from './conformance/index.js';

objectStoreConformance('directory', async () => new DirectoryStore(await tempDir()), { localRoot: true });

describe('DirectoryStore', () => {
  it('leaves no temporary file behind, whether the create won or lost', async () => {
    const root = await tempDir();
    const s = new DirectoryStore(root);
    await Promise.all(Array.from({ length: 8 }, () => s.putIfAbsent('log/00001', new Uint8Array([1]))));
    expect(await readdir(path.join(root, 'log'))).toEqual(['00001']);
  });

  it('refuses keys that could leave its root or name a hidden file, and nothing is written', async () => {
    const root = await tempDir();
    const s = new DirectoryStore(root);
    const bad = ['', '/a', 'a/', 'a//b', '.x', 'a/.b', 'a/../b', '../a', 'a\0b', 'x'.repeat(1025)];
    for (const key of bad) {
      await expect(s.putIfAbsent(key, new Uint8Array([1])), JSON.stringify(key)).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
      await expect(s.get(key), JSON.stringify(key)).rejects.toSatisfy((e) => isStrataError(e, 'INVALID_ARGUMENT'));
    }
    expect(await readdir(root)).toEqual([]);
    for (const key of ['k', 'a/b.parquet', 'log/00000000000000000001', 'a.b/c..d']) expect(await s.putIfAbsent(key, new Uint8Array([1]))).toBe(true);
  });

  it('refuses a URL for its root (a directory named s3: is not an S3 store), before anything is made', () => {
    for (const root of ['s3://bucket/p', 'S3://Bucket', 'file:///tmp/x']) {
      expect(() => new DirectoryStore(root), root).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/URL, not a directory/) }));
    }
    expect(() => new DirectoryStore('s3://b/p')).toThrow(/an S3 store is \{ s3: \{ bucket, prefix \} \}/);
  });

  it('maps keys to files under its root', async () => {
    const root = await tempDir();
    expect(new DirectoryStore(root).url('data/a/b.parquet')).toBe(path.join(root, 'data', 'a', 'b.parquet'));
  });
});

describe('DirectoryStore directories', () => {
  it('creates objects again after their directory was removed behind its back', async () => {
    const { rm } = await import('node:fs/promises');
    const root = await tempDir();
    const s = new DirectoryStore(root);
    expect(await s.putIfAbsent('log/1', new Uint8Array([1]))).toBe(true);
    await rm(path.join(root, 'log'), { recursive: true });
    expect(await s.putIfAbsent('log/2', new Uint8Array([2]))).toBe(true);
    expect(await s.get('log/2')).toEqual(Buffer.from([2]));
  });

  it('deletes the directories its deletes leave empty, and nothing else; a writer holding one recreates it', async () => {
    const { readdir } = await import('node:fs/promises');
    const root = await tempDir();
    const s = new DirectoryStore(root);
    const other = new DirectoryStore(root); // another process on the same directory
    for (const k of ['a/b/c/1', 'a/b/c/2', 'a/b/d/1', 'a/e']) await s.putIfAbsent(k, new Uint8Array([1]));
    await other.delete(['a/b/c/1', 'a/b/c/2']);
    expect(await readdir(path.join(root, 'a', 'b'))).toEqual(['d']);
    await other.delete(['a/b/d/1']);
    expect(await readdir(path.join(root, 'a'))).toEqual(['e']);
    await other.delete(['a/e', 'never/was']);
    expect(await readdir(root)).toEqual([]);
    expect(await s.putIfAbsent('a/b/c/3', new Uint8Array([3]))).toBe(true); // `s` still had a/b/c as made
    expect(await s.get('a/b/c/3')).toEqual(Buffer.from([3]));
  });
});

describe.skipIf(!canMountReadOnly)('DirectoryStore on a read-only disk (skipped where this process may not mount)', () => {
  it('reads; every write is STORE_UNAVAILABLE saying the disk is read-only and how to read the catalog on it', async () => {
    const root = await tempDir();
    const s = new DirectoryStore(root);
    await s.putIfAbsent('log/1', new Uint8Array([1]));
    await whileReadOnly(root, async () => {
      expect(await s.get('log/1')).toEqual(Buffer.from([1]));
      const refusals = [s.putIfAbsent('log/2', new Uint8Array([2])), s.replace('log/1', new Uint8Array([3])), s.readClock(), new DirectoryStore(path.join(root, 'new')).readClock()];
      for (const refused of refusals) {
        await expect(refused).rejects.toSatisfy((e) => isStrataError(e, 'STORE_UNAVAILABLE') && /read-only/.test((e as Error).message) && /readOnly: true/.test((e as Error).message));
      }
    });
  });
});
