// How far log compaction got, recorded beside the log in the store as `compacted/<N, 20 digits>`: every
// entry from 2 through N is a stub. Both layouts keep it the same way, so a run that stops midway is taken up
// where it stopped; older marks are deleted once a newer one is written.
import { type KvSeq, kvSeq } from '../../keys/ids.js';
import type { ObjectStore } from '../store/object-store.js';

export const COMPACTED_PREFIX = 'compacted/';

export async function compactedThrough(store: ObjectStore): Promise<KvSeq> {
  let through = 0;
  for await (const { key } of store.list(COMPACTED_PREFIX)) through = Math.max(through, Number(key.slice(COMPACTED_PREFIX.length)));
  return kvSeq(through);
}

export async function markCompacted(store: ObjectStore, seq: KvSeq): Promise<void> {
  const key = `${COMPACTED_PREFIX}${String(seq).padStart(20, '0')}`;
  await store.putIfAbsent(key, new Uint8Array(0));
  const older: string[] = [];
  for await (const o of store.list(COMPACTED_PREFIX)) if (o.key < key) older.push(o.key);
  await store.delete(older);
}
