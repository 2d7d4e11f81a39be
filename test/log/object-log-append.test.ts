// ObjectLog.appendOwn when the store fails a create: whether the entry found at its seq is this commit (a try
// that landed though its answer was lost, or landed late) or another writer's, when it tries again, and what
// it says when it cannot know.
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { isStrataError } from '../../src/errors.js';
import type { LogEntry } from '../../src/log/log-entry.js';
import { ObjectLog } from '../../src/log/object-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { type Faults, FaultyStore } from '../store/doubles/faulty-store.js';
import { entry } from '../support/segments.js';
import { tempDir } from '../helpers.js';

const lost = () => new Error('connection reset');

/** A log over a store whose n-th create (from 1) runs `faults[n]`, with the plain log of the same store beside it. */
async function logs(faults: (n: number, plain: ObjectLog) => Faults): Promise<{ log: ObjectLog; plain: ObjectLog }> {
  const inner = new DirectoryStore(await tempDir());
  const plain = new ObjectLog(inner);
  let creates = 0;
  const at = (n: number) => faults(n, plain);
  return {
    plain,
    log: new ObjectLog(
      new FaultyStore(inner, {
        beforeCreate: async (key) => at(++creates).beforeCreate?.(key),
        afterCreate: async (key, created) => at(creates).afterCreate?.(key, created),
        beforeGet: async (key) => at(creates).beforeGet?.(key),
      }),
    ),
  };
}

const txnAt = async (log: ObjectLog, e: LogEntry) => (await log.read(e.seq))?.txn;

describe('ObjectLog.appendOwn', () => {
  it('tries again after a create that failed with nothing written, and the second try lands', async () => {
    const e = entry(1);
    const { log, plain } = await logs((n) => ({ beforeCreate: () => (n === 1 ? Promise.reject(lost()) : undefined) }));
    expect(await log.appendOwn(e)).toBe(true);
    expect(await txnAt(plain, e)).toBe(e.txn);
  });

  it('a create that landed though its answer was lost is this commit; another writer\'s entry there is not', async () => {
    const e = entry(1);
    const landed = await logs((n) => ({ afterCreate: () => (n === 1 ? Promise.reject(lost()) : undefined) }));
    expect(await landed.log.appendOwn(e)).toBe(true);
    const theirs = entry(1);
    const beaten = await logs((n, plain) => ({
      beforeCreate: async () => {
        if (n !== 1) return;
        await plain.append(theirs);
        throw lost();
      },
    }));
    expect(await beaten.log.appendOwn(e)).toBe(false);
    expect(await txnAt(beaten.plain, e)).toBe(theirs.txn);
  });

  it('"exists" on a second try is this commit\'s first try landing late, or another writer\'s entry; on a first try it is never this commit', async () => {
    const e = entry(1);
    // The first try fails with nothing there to read back; the entry lands just before the second try.
    const late = await logs((n, plain) => ({
      beforeCreate: async () => {
        if (n === 1) throw lost();
        if (n === 2) await plain.append(e);
      },
    }));
    expect(await late.log.appendOwn(e)).toBe(true);
    // Another writer's entry found on a second try is not this commit.
    const theirs = entry(1);
    const taken = await logs((n, plain) => ({
      beforeCreate: async () => {
        if (n === 1) throw lost();
        if (n === 2) await plain.append(theirs);
      },
    }));
    expect(await taken.log.appendOwn(e)).toBe(false);
    expect(await txnAt(taken.plain, e)).toBe(theirs.txn);
    // An entry of the same txn before any try of ours is no try of ours.
    const early = await logs(() => ({}));
    await early.plain.append(e);
    expect(await early.log.appendOwn(e)).toBe(false);
  });

  it('says the commit may or may not have been written when every try fails and the read-back finds nothing', async () => {
    const { log } = await logs(() => ({ beforeCreate: () => Promise.reject(lost()) }));
    const out = await log.appendOwn(entry(5)).catch((e: unknown) => e);
    expect(isStrataError(out, 'STORE_UNAVAILABLE'), String(out)).toBe(true);
    expect((out as Error).message).toBe(
      'writing log entry 5 failed 2 times and reading it back found nothing, so the commit may or may not have been written ' +
        '(connection reset); once the store answers, refresh() and look for it in snapshots() before running it again',
    );
    expect((out as Error).cause).toBeInstanceOf(Error);
  });

  it('stops at once when the read-back fails too: trying again could not tell more', async () => {
    const { log, plain } = await logs(() => ({ beforeCreate: () => Promise.reject(lost()), beforeGet: () => Promise.reject(new Error('read timed out')) }));
    const out = await log.appendOwn(entry(5)).catch((e: unknown) => e);
    expect(isStrataError(out, 'STORE_UNAVAILABLE'), String(out)).toBe(true);
    expect((out as Error).message).toMatch(/^writing log entry 5 failed 1 time and reading it back failed too, so the commit may or may not/);
    expect(await plain.read(kvSeq(5))).toBeUndefined();
  });
});
