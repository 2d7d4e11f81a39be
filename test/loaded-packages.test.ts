// What a process pays to load: the AWS SDK and fastify (~45 ms each) only in a process that uses an S3 store
// or serves Iceberg's REST catalog, not in every embedder and every CLI call on a directory.
import { describe, expect, it } from 'vitest';
import { runTsx, tempDir } from './helpers.js';

const script = new URL('./support/loaded-packages.ts', import.meta.url);

describe('packages loaded', () => {
  it('on a directory store: neither the AWS SDK nor fastify; serving loads fastify', { timeout: 60_000 }, async () => {
    expect(JSON.parse((await runTsx(script, [await tempDir()])).stdout)).toEqual([]);
    expect(JSON.parse((await runTsx(script, [await tempDir(), '--serve'])).stdout)).toEqual(['fastify']);
  });
});
