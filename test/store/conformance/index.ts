// The conformance suite every ObjectStore runs (as abstract-level's suite is run by every implementation):
// one module per operation, composed here and gated by what the store says it supports. A store passes it
// or is not a store Strata can stand on.
import { describe } from 'vitest';
import type { ObjectStore } from '../../../src/store/object-store.js';
import { clock } from './clock.js';
import type { StoreSupports } from './common.js';
import { del } from './delete.js';
import { get } from './get.js';
import { info } from './info.js';
import { keys } from './keys.js';
import { list } from './list.js';
import { localRoot } from './local-root.js';
import { manifest } from './manifest.js';
import { putIfAbsent } from './put-if-absent.js';
import { replace } from './replace.js';
import { sweep } from './sweep.js';
import { url } from './url.js';

export type { StoreSupports } from './common.js';

/** `make` returns an empty store, private to the calling test. */
export function objectStoreConformance(name: string, make: () => Promise<ObjectStore>, supports: StoreSupports): void {
  const suite = { make, supports };
  describe(`ObjectStore conformance: ${name}`, () => {
    manifest(suite);
    get(suite);
    putIfAbsent(suite);
    replace(suite);
    keys(suite);
    list(suite);
    info(suite);
    del(suite);
    sweep(suite);
    url(suite);
    clock(suite);
    if (supports.localRoot) localRoot(suite);
  });
}
