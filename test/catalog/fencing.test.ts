import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionKey } from '../../keys/options.js';
import { kvSeq } from '../../keys/ids.js';
import { encodeValue } from '../../keys/value-codec.js';
import { isStrataError } from '../../src/index.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { dumpCatalog, openCatalog, tempDir } from '../helpers.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
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

  it('the writer holding the epoch asks the store nothing before a commit: one create per commit on the object layout, and a takeover still fences it', async () => {
    const storePath = path.join(await tempDir(), 'store');
    const requests: string[] = [];
    const counted = new FaultyStore(new DirectoryStore(storePath), {
      beforeGet: (key) => void requests.push(`get ${key}`),
      beforeCreate: (key) => void requests.push(`create ${key}`),
    });
    const info = counted.info.bind(counted);
    counted.info = (key) => (requests.push(`info ${key}`), info(key));
    const a = await openCatalog({ dir: await tempDir(), store: counted, logLayout: 'objects', exclusiveWriter: true, writerName: 'etl-a', checkpointEvery: 0 });
    await a.transaction((tx) => tx.createTable('main', 't', [{ name: 'x', type: 'int64' }]));
    requests.length = 0;
    for (let i = 0; i < 20; i++) await a.transaction((tx) => tx.addDataFile('main', 't', { path: `f${i}.parquet`, recordCount: 1, fileSizeBytes: 10 }));
    expect(requests).toHaveLength(20);
    expect(requests.every((r) => r.startsWith('create log/'))).toBe(true);

    // Another writer takes the epoch: the first append after it loses the race, catches up, and is fenced.
    const b = await openCatalog({ dir: await tempDir(), store: { path: storePath }, exclusiveWriter: true, writerName: 'etl-b' });
    const entries = await logCount(storePath);
    await expect(a.transaction((tx) => tx.addDataFile('main', 't', { path: 'zombie.parquet', recordCount: 1, fileSizeBytes: 10 }))).rejects.toSatisfy(
      (e) => isStrataError(e, 'FENCED') && /superseded by etl-b/.test(e.message),
    );
    expect(await logCount(storePath)).toBe(entries);
    const r = await b.reader();
    expect((await r.dataFiles('main', 't')).map((f) => f.path)).not.toContain('zombie.parquet');
    await r.close();
  });
});
