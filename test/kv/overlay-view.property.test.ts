import * as path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { Space } from '../../keys/spaces.js';
import { KvStore } from '../../src/kv/kv-store.js';
import { OverlayView } from '../../src/kv/overlay-view.js';
import type { ReadView } from '../../src/kv/read-view.js';
import { tempDir } from '../helpers.js';
import { answers, probeArb, putArb } from '../support/view-answers.js';

// An overlay over an index view must answer every read exactly as an index holding both would.

const stores: KvStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function storeWith(...entries: Mutation[][]): Promise<KvStore> {
  const kv = await KvStore.open(path.join(await tempDir(), 'index'));
  stores.push(kv);
  for (const [i, mutations] of entries.entries()) await kv.apply(kvSeq(i + 1), `txn-${i + 1}`, mutations);
  return kv;
}

describe('OverlayView', () => {
  it('answers every read as the index would after the same puts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(putArb, { maxLength: 30 }),
        fc.array(fc.array(putArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }),
        fc.array(probeArb, { minLength: 1, maxLength: 4 }),
        async (base, layers, probes) => {
          const plain = await storeWith(base);
          const applied = await storeWith(base, layers.flat());
          const baseView = await plain.readView();
          const expectedView = await applied.readView();
          try {
            let overlay: ReadView = baseView;
            for (const layer of layers) overlay = OverlayView.over(overlay, layer);
            expect(await answers(overlay, probes)).toEqual(await answers(expectedView, probes));
          } finally {
            await Promise.all([baseView.close(), expectedView.close()]);
            await Promise.all(stores.splice(0).map((s) => s.close()));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses deletes: a commit plan only puts', async () => {
    const kv = await storeWith([]);
    const view = await kv.readView();
    expect(() => OverlayView.over(view, [{ type: 'del', key: encodeKey(Space.Metadata, ['a']) }])).toThrow(/puts only/);
    await view.close();
  });
});
