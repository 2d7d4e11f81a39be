// What a process pays to load: the AWS SDK and fastify (~45 ms each) only in a process that uses an S3 store
// or serves Iceberg's REST catalog, and avsc, better-sqlite3 and cli-progress (~25 ms together) only in one
// that writes Iceberg manifests, reads or writes a DuckLake file or draws a bar — not in every embedder and
// every CLI call on a directory.
import { describe, expect, it } from 'vitest';
import { runTsx, tempDir } from './helpers.js';

const script = new URL('./support/loaded-packages.ts', import.meta.url);
const loaded = async (...args: string[]) => JSON.parse((await runTsx(script, [await tempDir(), ...args])).stdout) as string[];

describe('packages loaded', () => {
  it('on a directory store: none of them; serving loads fastify, Iceberg metadata avsc, a DuckLake file better-sqlite3', { timeout: 60_000 }, async () => {
    expect(await loaded()).toEqual([]);
    expect(await loaded('--serve')).toEqual(['fastify']);
    expect(await loaded('--iceberg')).toEqual(['avsc']);
    expect(await loaded('--export')).toEqual(['better-sqlite3']);
  });
});
