// How the object log tells its end from a gap: the gap's message names the missing entry and the later one
// that exists (the next one, or the first a thorough listing finds); an object under log/ whose name is no
// entry's — a stray file, a number past the safe integers, one not padded — is neither an entry nor a gap; and
// an entry written between two looks (so that the one after it is seen first) is no gap; and an entry under
// another's name is damage.
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import { logObjectKey, ObjectLog } from '../../src/log/object-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { FaultyStore } from '../store/doubles/faulty-store.js';
import { entry } from '../support/segments.js';
import { tempDir } from '../helpers.js';

async function logWith(seqs: number[]): Promise<{ log: ObjectLog; store: DirectoryStore }> {
  const store = new DirectoryStore(await tempDir());
  const log = new ObjectLog(store);
  for (const s of seqs) expect(await log.append(entry(s))).toBe(true);
  return { log, store };
}

async function readAll(log: ObjectLog, thorough: boolean): Promise<number[] | unknown> {
  const seen: number[] = [];
  try {
    for await (const e of log.readAfter(kvSeq(0), { thorough })) seen.push(e.seq);
    return seen;
  } catch (e) {
    return e;
  }
}

const gap = (out: unknown, missing: number, later: number) => {
  expect(isStrataError(out, 'CORRUPT'), String(out)).toBe(true);
  expect((out as Error).message).toMatch(
    new RegExp(
      `^log entry ${missing} \\(${logObjectKey(kvSeq(missing))}\\) is missing from directory .* although entry ${later} exists: the log has a gap, ` +
        'so nothing after it can be trusted and no writer may fill it; restore the missing entry from a backup \\(strata verify lists what else is damaged\\)$',
    ),
  );
};

describe('ObjectLog: its end and its gaps', () => {
  it('a gap of one names the missing entry and the next, read plainly or thoroughly', async () => {
    const { log } = await logWith([1, 2, 4]);
    gap(await readAll(log, false), 3, 4);
    gap(await readAll(log, true), 3, 4);
  });

  it('a thorough read names the first later entry past a longer gap', async () => {
    const { log } = await logWith([1, 2, 7, 8]);
    gap(await readAll(log, true), 3, 7);
    expect(await readAll(log, false)).toEqual([1, 2]);
  });

  it('objects under log/ whose names are no entry\'s are not later entries', async () => {
    // 'log/1' and 'log/3' list after every padded name of a log this short, though their numbers are not past
    // its end (3, the first missing): no entry is named so.
    for (const stray of ['log/zzz', 'log/99999999999999999999999', 'log/1', 'log/3']) {
      const { log, store } = await logWith([1, 2]);
      expect(await store.putIfAbsent(stray, new Uint8Array([1]))).toBe(true);
      expect(await readAll(log, true)).toEqual([1, 2]);
    }
  });

  it('an entry written after a look found it missing, with the one after it, is read, not taken for a gap', async () => {
    for (const look of ['head', 'readAfter'] as const) {
      const { log: plain, store } = await logWith([1, 2]);
      // The first look at entry 3 finds nothing; entries 3 and 4 are written before anything else is looked at.
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      let looked = false;
      const log = new ObjectLog(
        new FaultyStore(store, {
          beforeOperation: async (_n, op, key) => {
            if (op === 'get' && key !== logObjectKey(kvSeq(3))) await written;
          },
          afterOperation: async (_n, op, key) => {
            if (op !== 'get' || key !== logObjectKey(kvSeq(3)) || looked) return;
            looked = true;
            for (const s of [3, 4]) expect(await plain.append(entry(s))).toBe(true);
            wrote();
          },
        }),
      );
      if (look === 'head') expect(await log.head(kvSeq(2))).toBe(4);
      else {
        const seen: number[] = [];
        for await (const e of log.readAfter(kvSeq(2))) seen.push(e.seq);
        expect(seen).toEqual([3, 4]);
      }
    }
  });

  it('an entry stored under another entry\'s name is damage naming the object and the entry it holds', async () => {
    const { log, store } = await logWith([1, 2, 3]);
    await store.replace(logObjectKey(kvSeq(3)), (await store.get(logObjectKey(kvSeq(1))))!);
    const out = await log.read(kvSeq(3)).catch((e: unknown) => e);
    expect(isStrataError(out, 'CORRUPT'), String(out)).toBe(true);
    expect((out as Error).message).toBe(`log object ${logObjectKey(kvSeq(3))} holds entry 1; the store's log is damaged`);
  });
});

