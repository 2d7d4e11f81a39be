// Raw looks at a closed catalog's index, for GC tests that must see what is physically left.
import { Level } from 'level';
import * as path from 'node:path';
import { afterEach } from 'vitest';
import { Space } from '../../keys/spaces.js';
import { KvStore } from '../../src/kv/kv-store.js';

async function withIndex<T>(dir: string, fn: (db: Level<Uint8Array, Uint8Array>) => Promise<T>): Promise<T> {
  const db = new Level<Uint8Array, Uint8Array>(path.join(dir, 'index'), { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** How many keys each key space holds, by space name. */
export function keysBySpace(dir: string): Promise<Record<string, number>> {
  return withIndex(dir, async (db) => {
    const out: Record<string, number> = {};
    for await (const key of db.keys()) {
      const name = Space[key[0] as Space] ?? `0x${key[0]!.toString(16)}`;
      out[name] = (out[name] ?? 0) + 1;
    }
    return out;
  });
}

/** Every key and value, hex-encoded, in order: two equal dumps are byte-identical indexes. */
export function rawDump(dir: string, skip: (key: Uint8Array) => boolean = () => false): Promise<[string, string][]> {
  return withIndex(dir, async (db) => {
    const out: [string, string][] = [];
    for await (const [k, v] of db.iterator()) if (!skip(k)) out.push([Buffer.from(k).toString('hex'), Buffer.from(v).toString('hex')]);
    return out;
  });
}

const indexes: KvStore[] = [];
afterEach(async () => {
  await Promise.all(indexes.splice(0).map((s) => s.close()));
});

/** The index under `dir` (a closed catalog's, or a new one), closed after the test. */
export async function openIndex(dir: string): Promise<KvStore> {
  const kv = await KvStore.open(path.join(dir, 'index'));
  indexes.push(kv);
  return kv;
}

/** What `fn` threw; a test fails when it throws nothing. */
export function refusal(fn: () => unknown): { code?: string; message: string; snapshot?: number } {
  try {
    fn();
  } catch (e) {
    return e as { code: string; message: string; snapshot?: number };
  }
  throw new Error('not refused');
}
