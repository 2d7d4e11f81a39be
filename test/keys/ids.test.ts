// The branded id constructors (keys/ids.ts) take only what a key field can hold: a non-negative safe integer.
import { describe, expect, it } from 'vitest';
import { catalogId, columnId, fileId, kvSeq, MAX_ID, snapshotId } from '../../keys/ids.js';

describe('id constructors', () => {
  it('take 0 and every whole number up to MAX_ID', () => {
    expect(snapshotId(0)).toBe(0);
    expect(catalogId(17)).toBe(17);
    expect(fileId(MAX_ID)).toBe(MAX_ID);
  });

  it('refuse a negative, fractional, unsafe or non-finite number, naming what it was for', () => {
    expect(() => snapshotId(-1)).toThrow(new RangeError('snapshot id must be a non-negative safe integer, got -1'));
    expect(() => kvSeq(1.5)).toThrow(new RangeError('kv sequence must be a non-negative safe integer, got 1.5'));
    expect(() => catalogId(MAX_ID + 1)).toThrow(new RangeError('catalog id must be a non-negative safe integer, got 9007199254740992'));
    expect(() => fileId(Number.NaN)).toThrow(new RangeError('file id must be a non-negative safe integer, got NaN'));
    expect(() => columnId(Number.POSITIVE_INFINITY)).toThrow(new RangeError('column id must be a non-negative safe integer, got Infinity'));
    expect(() => snapshotId(-0.5)).toThrow(RangeError);
  });
});
