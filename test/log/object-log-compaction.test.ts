// Log compaction of the object layout: every entry from the one after the last mark through the one asked,
// in batches, each replaced by its stub once; a run that stopped before its mark taken up without writing
// again what it stubbed; a compaction through an entry already compacted writes nothing; and the refusal of an
// entry that is not there.
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { ObjectLog } from '../../src/log/object-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { tempDir } from '../helpers.js';
import { FaultyStore, type StoreOperation } from '../store/doubles/faulty-store.js';
import { entry } from '../support/segments.js';

/** A log of entries 1..n, with the operations its store took since `ops` was last emptied. */
async function logOf(n: number): Promise<{ log: ObjectLog; store: DirectoryStore; ops: [StoreOperation, string][] }> {
  const store = new DirectoryStore(await tempDir());
  const ops: [StoreOperation, string][] = [];
  const log = new ObjectLog(new FaultyStore(store, { afterOperation: (_n, op, key) => void ops.push([op, key]) }));
  for (let s = 1; s <= n; s++) expect(await log.append(entry(s))).toBe(true);
  ops.length = 0;
  return { log, store, ops };
}

const kinds = async (log: ObjectLog, n: number) => {
  const out: string[] = [];
  for (let s = 1; s <= n; s++) out.push((await log.read(kvSeq(s)))!.kind);
  return out.join(' ');
};

const writes = (ops: [StoreOperation, string][]) => ops.filter(([op]) => op !== 'get' && op !== 'list' && op !== 'info');

describe('ObjectLog.compact', () => {
  it('stubs every entry from 2 through the one asked, across batches, and marks how far it got', async () => {
    const { log, ops } = await logOf(36);
    // 33 entries (2–34): two whole batches of 16 and one of a single entry.
    await log.compact(kvSeq(34));
    // Each read once (entry 34 once more, to know it is there), none past it.
    const reads = ops.filter(([op, key]) => op === 'get' && key.startsWith('log/')).map(([, key]) => Number(key.slice(4)));
    expect(reads.sort((a, b) => a - b)).toEqual([...Array.from({ length: 33 }, (_, i) => i + 2), 34].sort((a, b) => a - b));
    expect(await kinds(log, 36)).toBe(['commit', ...Array(33).fill('stub'), 'commit', 'commit'].join(' '));
    expect(await log.compactedThrough()).toBe(34);
  });

  it('a second compaction starts after the mark, and one through a single further entry stubs and marks it', async () => {
    const { log, ops } = await logOf(12);
    await log.compact(kvSeq(10));
    ops.length = 0;
    await log.compact(kvSeq(11));
    expect(await log.compactedThrough()).toBe(11);
    expect(writes(ops).filter(([op]) => op === 'replace')).toEqual([['replace', 'log/00000000000000000011']]);
    // Nothing at or before the mark is read again.
    expect(ops.filter(([op, key]) => op === 'get' && key.startsWith('log/') && Number(key.slice(4)) <= 10)).toEqual([]);
    expect(await kinds(log, 12)).toBe(['commit', ...Array(10).fill('stub'), 'commit'].join(' '));
  });

  it('a run that stopped before its mark is taken up again without writing any stub twice', async () => {
    const { log, store, ops } = await logOf(6);
    await log.compact(kvSeq(5));
    // The run that stubbed 2–5 stopped before its mark was written.
    await store.delete(['compacted/00000000000000000005']);
    ops.length = 0;
    await log.compact(kvSeq(5));
    expect(writes(ops).map(([op]) => op)).toEqual(['putIfAbsent', 'delete']);
    expect(await log.compactedThrough()).toBe(5);
  });

  it('a compaction through an entry already compacted writes nothing', async () => {
    const { log, ops } = await logOf(6);
    await log.compact(kvSeq(5));
    ops.length = 0;
    for (const through of [5, 3]) await log.compact(kvSeq(through));
    expect(writes(ops)).toEqual([]);
    expect(await log.compactedThrough()).toBe(5);
  });

  it('refuses an entry that is not in the log, naming it and the log', async () => {
    const { log } = await logOf(3);
    const out = await log.compact(kvSeq(9)).catch((e: unknown) => e);
    expect(isStrataError(out, 'INVALID_ARGUMENT'), String(out)).toBe(true);
    expect((out as Error).message).toBe(`log entry 9 does not exist in ${log.description}, so the log cannot be compacted through it`);
    // The log calls itself what its store is, and its layout what info() reports.
    expect(log.description).toMatch(/^directory .* \(fault-injecting\)$/);
    expect(log.layout).toBe('objects');
  });
});
