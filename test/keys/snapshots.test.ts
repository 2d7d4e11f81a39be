// The snapshot family (keys/snapshots.ts): what a new snapshot writes, where the time index puts it, and the
// rules verify checks of snapshot records (each message word for word: it is what an operator reads).
import { describe, expect, it } from 'vitest';
import { catalogId, fileId, MAX_ID, snapshotId } from '../../keys/ids.js';
import { compareKeys, type Key, keyToString } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { counterProblems, createSnapshot, decodeTimeKey, referencedSnapshotProblems, type SnapshotChangesRow, type SnapshotRow, snapshotProblems, timesUpTo } from '../../keys/snapshots.js';
import { Space } from '../../keys/spaces.js';
import { HEAD_SNAPSHOT_KEY } from '../../keys/system.js';
import { decodeValue } from '../../keys/value-codec.js';

const row = (time: number, over: Partial<SnapshotRow> = {}): SnapshotRow => ({ time, schemaVersion: 2, nextCatalogId: catalogId(10), nextFileId: fileId(20), ...over });
const changes: SnapshotChangesRow = { changes: ['created_schema:"s"'], author: null, message: null, extraInfo: null, maintenance: false };
const puts = (ms: Mutation[]) => ms.map((m) => (m.type === 'put' ? { at: keyToString(m.key), value: decodeValue(m.key, m.value) } : { del: keyToString(m.key) }));
const timeKeyOf = (ms: Mutation[]): Key => ms.find((m) => m.key[0] === Space.SnapshotTimeIndex)!.key;

describe('a new snapshot', () => {
  it('writes its row, its changes, its time index entry and the head; its schema version only when the schema changed', () => {
    const plain = createSnapshot(snapshotId(7), row(1000), changes, false);
    expect(puts(plain)).toEqual([
      { at: 'Snapshot[@7]', value: row(1000) },
      { at: 'SnapshotChanges[@7]', value: changes },
      { at: 'SnapshotTimeIndex[1000,@7]', value: {} },
      { at: keyToString(HEAD_SNAPSHOT_KEY), value: { id: 7 } },
    ]);
    const altered = createSnapshot(snapshotId(7), row(1000, { schemaVersion: 3 }), changes, true);
    expect(puts(altered).slice(4)).toEqual([{ at: 'SchemaVersions[@7]', value: { schemaVersion: 3 } }]);
    expect(altered).toHaveLength(5);
  });

  it('timesUpTo(T) takes every snapshot committed at T, whatever its id, and none after T', () => {
    const at = (time: number, id: number) => timeKeyOf(createSnapshot(snapshotId(id), row(time), changes, false));
    const range = timesUpTo(1000);
    expect(decodeTimeKey(range.lte)).toEqual({ time: 1000, id: MAX_ID });
    const inside = (k: Key) => compareKeys(k, range.gte) >= 0 && compareKeys(k, range.lte) <= 0;
    expect([at(0, 1), at(999, MAX_ID), at(1000, 0), at(1000, MAX_ID)].every(inside)).toBe(true);
    expect(inside(at(1001, 0))).toBe(false);
    expect(Buffer.from(range.gte)).toEqual(Buffer.of(Space.SnapshotTimeIndex));
  });
});

describe("verify's snapshot rules", () => {
  const facts = (rows: { id: number; time: number }[], more: { changes?: number[]; times?: { time: number; id: number }[]; head?: number | undefined } = {}) => ({
    rows,
    changes: new Set(more.changes ?? rows.map((r) => r.id)),
    times: more.times ?? rows,
    head: 'head' in more ? more.head : rows.at(-1)?.id,
  });

  it('whole records, times that never go back (equal times are fine), the head naming the newest: nothing to say', () => {
    expect(snapshotProblems(facts([{ id: 1, time: 5 }, { id: 2, time: 5 }, { id: 3, time: 9 }]))).toEqual([]);
    // An empty keyspace, with no head: nothing either.
    expect(snapshotProblems(facts([]))).toEqual([]);
  });

  it('a snapshot committed before the one below it', () => {
    expect(snapshotProblems(facts([{ id: 1, time: 10 }, { id: 2, time: 9 }]))).toEqual([
      { invariant: 'snapshot-times-never-go-back', key: 'Snapshot[@2]', message: 'snapshot 2 was committed at 9, before snapshot 1 (10)' },
    ]);
  });

  it('a row without its changes, and changes without their row', () => {
    expect(snapshotProblems(facts([{ id: 1, time: 1 }, { id: 2, time: 2 }], { changes: [2, 4] }))).toEqual([
      { invariant: 'snapshot-records-are-whole', key: 'Snapshot[@1]', message: 'snapshot 1 has no changes record' },
      { invariant: 'snapshot-records-are-whole', message: 'a changes record for snapshot 4, which has no row' },
    ]);
  });

  it('a time index entry at another time, one for no row, and a row the index lacks', () => {
    const f = facts([{ id: 1, time: 1 }, { id: 2, time: 2 }], { times: [{ time: 3, id: 1 }, { time: 8, id: 5 }] });
    expect(snapshotProblems(f)).toEqual([
      { invariant: 'time-index-equals-the-snapshots', key: 'SnapshotTimeIndex[3,@1]', message: 'the time index puts snapshot 1 at 3; its row says 1' },
      { invariant: 'time-index-equals-the-snapshots', key: 'SnapshotTimeIndex[8,@5]', message: 'the time index puts snapshot 5 at 8; its row says nothing (no row)' },
      { invariant: 'time-index-equals-the-snapshots', key: 'Snapshot[@2]', message: 'snapshot 2 is not in the time index' },
    ]);
  });

  it('a head naming another snapshot than the newest, or none, or one where there are no rows', () => {
    const rows = [{ id: 1, time: 1 }, { id: 2, time: 2 }];
    expect(snapshotProblems(facts(rows, { head: 1 }))).toEqual([{ invariant: 'head-is-the-newest-snapshot', message: 'the head names snapshot 1; the newest snapshot row is 2' }]);
    expect(snapshotProblems(facts(rows, { head: undefined }))).toEqual([{ invariant: 'head-is-the-newest-snapshot', message: 'the head names snapshot nothing; the newest snapshot row is 2' }]);
    expect(snapshotProblems(facts([], { head: 3 }))).toEqual([{ invariant: 'head-is-the-newest-snapshot', message: 'the head names snapshot 3; the newest snapshot row is none' }]);
  });

  it('a snapshot a row names must have its record from retain-from on, retain-from itself included', () => {
    const named = new Map([[3, 'a'], [4, 'b'], [5, 'c']]);
    expect(referencedSnapshotProblems(named, new Set([5]), 4)).toEqual([
      { invariant: 'named-snapshots-exist', key: 'b', message: 'snapshot 4 is named here (at or above retain-from 4) but has no record' },
    ]);
    expect(referencedSnapshotProblems(named, new Set([3, 4, 5]), 0)).toEqual([]);
  });

  it("the newest snapshot's counters must be above every id in use: equal is already taken", () => {
    expect(counterProblems(undefined, 50, 50)).toEqual([]);
    expect(counterProblems(row(1), 9, 19)).toEqual([]);
    expect(counterProblems(row(1), 10, 20)).toEqual([
      { invariant: 'counters-above-every-id', message: 'next_catalog_id is 10, but catalog id 10 is in use' },
      { invariant: 'counters-above-every-id', message: 'next_file_id is 20, but file id 20 is in use' },
    ]);
    expect(counterProblems(row(1), -1, 25)).toEqual([{ invariant: 'counters-above-every-id', message: 'next_file_id is 20, but file id 25 is in use' }]);
  });
});
