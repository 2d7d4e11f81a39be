// What the modules of the store conformance suite share: the store under test, what it says it supports,
// and the few helpers every module reads its answers with.
import type { ObjectInfo, ObjectStore } from '../../../src/store/object-store.js';

/**
 * What a store does beyond what every store must (abstract-level's `supports` manifest). Create-if-absent,
 * byte order and modification times are not here: a store without them is not one Strata can stand on.
 */
export interface StoreSupports {
  /** Its objects are files under a directory on this machine (`localRoot`), where a segmented log keeps its segments beside them. */
  localRoot: boolean;
}

export interface StoreSuite {
  /** An empty store, private to the calling test. */
  make: () => Promise<ObjectStore>;
  supports: StoreSupports;
}

export const bytes = (s: string) => new TextEncoder().encode(s);
export const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

export async function collect(it: AsyncIterable<ObjectInfo>): Promise<string[]> {
  const out: string[] = [];
  for await (const o of it) out.push(o.key);
  return out;
}
