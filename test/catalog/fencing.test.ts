import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionKey } from '../../keys/options.js';
import { kvSeq } from '../../keys/ids.js';
import { encodeValue } from '../../keys/value-codec.js';
import { isStrataError } from '../../src/index.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';
import { logHead, withStoreLog } from '../support/store-log.js';

const logCount = logHead;

describe('fencing', () => {
  it("a superseded writer's commit fails with FENCED and the log shows nothing of it", async () => {
    const storePath = path.join(await tempDir(), 'store');
    const store = { path: storePath };
    const a = await openCatalog({ dir: await tempDir(), store, exclusiveWriter: true, writerName: 'etl-a' });
    await a.transaction((tx) => tx.createSchema('from_a'));
    const plain = await openCatalog({ dir: await tempDir(), store });
    const b = await openCatalog({ dir: await tempDir(), store, exclusiveWriter: true, writerName: 'etl-b' });
    const entries = await logCount(storePath);

    const err = await a.transaction((tx) => tx.createSchema('zombie')).catch((e: unknown) => e);
    expect(isStrataError(err, 'FENCED')).toBe(true);
    expect((err as Error).message).toMatch(/superseded by etl-b \(epoch 2\)/);
    await expect(a.createTag('zombie', 0)).rejects.toSatisfy((e) => isStrataError(e, 'FENCED'));
    await expect(plain.transaction((tx) => tx.createSchema('plain'))).rejects.toSatisfy((e) => isStrataError(e, 'FENCED'));
    expect(await logCount(storePath)).toBe(entries);

    await b.transaction((tx) => tx.createSchema('from_b'));
    await a.refresh();
    const r = await a.reader();
    expect((await r.schemas()).map((s) => s.name)).toEqual(['from_a', 'from_b', 'main']);
    await r.close();
  });

  it('replay never applies an entry written under a stale epoch', async () => {
    const storePath = path.join(await tempDir(), 'store');
    const b = await openCatalog({ dir: await tempDir(), store: { path: storePath }, exclusiveWriter: true });
    await b.transaction((tx) => tx.createSchema('real'));
    const before = await dumpCatalog(b);
    // A zombie that did not see epoch 1 forges the next entry directly in the store.
    const forged = optionKey('forged');
    await withStoreLog(storePath, async (log) => {
      const seq = kvSeq((await logCount(storePath)) + 1);
      expect(await log.append({ seq, kind: 'commit', epoch: 0, txn: 'zombie', prev: '', snapshots: [], mutations: [{ type: 'put', key: forged, value: encodeValue({ value: 'x' }) }] })).toBe(true);
    });
    await b.refresh();
    expect(await b.options()).not.toHaveProperty('forged');
    const fresh = await openCatalog({ dir: await tempDir(), store: { path: storePath }, readOnly: true });
    expect(await fresh.options()).not.toHaveProperty('forged');
    expect(await dumpCatalog(fresh)).toEqual(before);
    // The sequence number was consumed: the next commit goes after it.
    await b.transaction((tx) => tx.createSchema('after'));
  });
});
