import { describe, expect, it } from 'vitest';
import { kvSeq, type SnapshotId } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import { Space } from '../../keys/spaces.js';
import { encodeValue } from '../../keys/value-codec.js';
import { SnapshotTimeline } from '../../src/kv/snapshot-timeline.js';

const entry = (id: number, time: number): [Uint8Array, Uint8Array] => [encodeKey(Space.SnapshotTimeIndex, [time], id), encodeValue({})];
async function* batches(...entries: [Uint8Array, Uint8Array][]) {
  yield entries;
}
const put = (id: number, time: number) => ({ type: 'put' as const, key: entry(id, time)[0], value: entry(id, time)[1] });
const head = (n: number) => n as SnapshotId;

describe('SnapshotTimeline', () => {
  it('answers nothing until loaded, and loads only from the newest state with no apply in flight', async () => {
    const t = new SnapshotTimeline(kvSeq(3));
    expect(t.find(100, head(2))).toBeNull();
    await t.load(kvSeq(2), batches(entry(0, 10)));
    expect(t.find(100, head(2))).toBeNull();
    t.beginApply([put(3, 40)]);
    await t.load(kvSeq(3), batches(entry(0, 10)));
    expect(t.find(100, head(2))).toBeNull();
    t.endApply(kvSeq(4));
    await t.load(kvSeq(4), batches(entry(0, 10), entry(1, 20), entry(2, 20), entry(3, 40)));
    expect(t.find(5, head(3))).toBeUndefined();
    expect(t.find(10, head(3))).toBe(0);
    expect(t.find(25, head(3))).toBe(2); // equal times: the higher id
    expect(t.find(1000, head(3))).toBe(3);
  });

  it('never answers past the asking view\'s newest snapshot, though it learns of new ones before their batch', async () => {
    const t = new SnapshotTimeline(kvSeq(1));
    await t.load(kvSeq(1), batches(entry(0, 10), entry(1, 20)));
    t.beginApply([put(2, 30)]);
    expect(t.find(1000, head(1))).toBe(1); // a view taken before entry 2 lands
    t.endApply(kvSeq(2));
    expect(t.find(1000, head(2))).toBe(2);
  });

  it('stays unloaded when told to stop between batches, and loads whole when asked again', async () => {
    const t = new SnapshotTimeline(kvSeq(1));
    async function* two() {
      yield [entry(0, 10)];
      yield [entry(1, 20)];
    }
    let asked = 0;
    await t.load(kvSeq(1), two(), () => ++asked > 1);
    expect(asked).toBe(2);
    expect(t.find(1000, head(1))).toBeNull();
    await t.load(kvSeq(1), two(), () => false);
    expect(t.find(15, head(1))).toBe(0);
    expect(t.find(1000, head(1))).toBe(1);
  });

  it('keeps what is applied while it reads and adds it after; gives up if anything is forgotten meanwhile', async () => {
    const t = new SnapshotTimeline(kvSeq(2));
    // The time index handed over in two batches, with commits applied between them.
    async function* twoBatches(between: () => void) {
      yield [entry(0, 10), entry(1, 20)];
      between();
      yield [entry(2, 30)];
    }
    await t.load(
      kvSeq(2),
      twoBatches(() => {
        t.beginApply([put(3, 40)]);
        t.endApply(kvSeq(3));
        t.beginApply([put(4, 50)]);
        t.endApply(kvSeq(4));
      }),
    );
    expect(t.find(45, head(4))).toBe(3);
    expect(t.find(1000, head(4))).toBe(4);
    expect(t.find(25, head(4))).toBe(1);

    const u = new SnapshotTimeline(kvSeq(2));
    await u.load(
      kvSeq(2),
      twoBatches(() => {
        u.beginApply([{ type: 'del', key: entry(0, 10)[0] }]);
        u.endApply(kvSeq(3));
      }),
    );
    expect(u.find(1000, head(3))).toBeNull();
    const failed = new SnapshotTimeline(kvSeq(2));
    await failed.load(
      kvSeq(2),
      twoBatches(() => {
        failed.beginApply([put(3, 40)]);
        failed.endApply(undefined);
      }),
    );
    expect(failed.find(1000, head(3))).toBeNull();
  });

  it('past its size, entries applied during a load included, gives up and is not read again until it shrinks', async () => {
    // At most 4 entries: 4 in the index and 1 applied while it reads are one too many.
    const t = new SnapshotTimeline(kvSeq(4), 4);
    let reads = 0;
    async function* four(between: () => void) {
      reads++;
      yield [entry(0, 10), entry(1, 20)];
      between();
      yield [entry(2, 30), entry(3, 40)];
    }
    await t.load(
      kvSeq(4),
      four(() => {
        t.beginApply([put(4, 50)]);
        t.endApply(kvSeq(5));
      }),
    );
    expect(t.find(25, head(4))).toBeNull();
    expect(t.find(1e9, head(4))).toBeNull();
    // Too large to hold: a later load does not read it all again for nothing.
    await t.load(kvSeq(5), four(() => undefined));
    expect(reads).toBe(1);
    expect(t.find(25, head(4))).toBeNull();
    // An excision may take it below the size again.
    t.beginApply([{ type: 'del', key: entry(0, 10)[0] }]);
    t.endApply(kvSeq(6));
    async function* rest() {
      yield [entry(1, 20), entry(2, 30), entry(3, 40), entry(4, 50)];
    }
    await t.load(kvSeq(6), rest());
    expect(t.find(25, head(4))).toBe(1);
  });

  it('forgets everything when a time index entry is deleted (excision), and reloads later', async () => {
    const t = new SnapshotTimeline(kvSeq(1));
    await t.load(kvSeq(1), batches(entry(0, 10), entry(1, 20)));
    t.beginApply([{ type: 'del', key: entry(0, 10)[0] }]);
    t.endApply(kvSeq(2));
    expect(t.find(1000, head(1))).toBeNull();
    await t.load(kvSeq(2), batches(entry(1, 20)));
    expect(t.find(15, head(1))).toBeUndefined();
  });
});
