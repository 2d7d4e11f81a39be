// System values (keys/system.ts): the index's applied sequence and txn, the catalog identity an entry carries,
// the head, the writer epoch and the id horizon, and which entries touch them.
import { describe, expect, it } from 'vitest';
import { kvSeq } from '../../keys/ids.js';
import { encodeKey } from '../../keys/key-codec.js';
import { del, type Mutation, putRow } from '../../keys/mutation.js';
import { Space } from '../../keys/spaces.js';
import {
  decodeIdHorizon,
  decodeSeq,
  decodeTxn,
  decodeWriterEpoch,
  encodeSeq,
  encodeTxn,
  headSnapshotId,
  ID_HORIZON_KEY,
  IDENTITY_KEY,
  identityIn,
  isIdClaim,
  NO_WRITER_EPOCH,
  putIdentity,
  putIdHorizon,
  putWriterEpoch,
  touchesWriterEpoch,
  WRITER_EPOCH_KEY,
} from '../../keys/system.js';
import { StrataError } from '../../src/errors.js';

const other = putRow(encodeKey(Space.Metadata, ['data_path']), { value: 'x' });
const identity = { uuid: 'c0ffee', createdAt: 12, layout: 2 };

describe('the applied sequence and txn', () => {
  it('round-trip; no sequence yet reads as 0', () => {
    expect(decodeSeq(encodeSeq(kvSeq(2 ** 40 + 3)))).toBe(2 ** 40 + 3);
    expect(decodeSeq(undefined)).toBe(0);
    expect(decodeTxn(encodeTxn('tx-é'))).toBe('tx-é');
    expect(decodeTxn(undefined)).toBe('');
  });

  it('a sequence of any other length than 8 bytes is CORRUPT', () => {
    for (const n of [0, 7, 9]) {
      let error: unknown;
      try {
        decodeSeq(new Uint8Array(n));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StrataError);
      expect((error as StrataError).code).toBe('CORRUPT');
      expect((error as Error).message).toBe(`the index's applied sequence is ${n} bytes, expected 8; rebuild the index from the store`);
    }
  });
});

describe('what an entry carries', () => {
  it("the identity is the put of the identity key, wherever it is among the entry's mutations", () => {
    expect(identityIn([other, putIdentity(identity)])).toEqual(identity);
    expect(identityIn([putIdentity(identity), other])).toEqual(identity);
    expect(identityIn([del(IDENTITY_KEY), putIdentity(identity)])).toEqual(identity);
    // A delete of the key, another put, or nothing: no identity.
    expect(identityIn([del(IDENTITY_KEY), other])).toBeUndefined();
    expect(identityIn([])).toBeUndefined();
  });

  it('an entry touches the writer epoch when any of its mutations writes or deletes it', () => {
    const epoch = putWriterEpoch({ epoch: 3, holder: 'w', since: 1 });
    expect(touchesWriterEpoch([])).toBe(false);
    expect(touchesWriterEpoch([other])).toBe(false);
    expect(touchesWriterEpoch([other, epoch])).toBe(true);
    expect(touchesWriterEpoch([epoch, other])).toBe(true);
    expect(touchesWriterEpoch([del(WRITER_EPOCH_KEY)])).toBe(true);
  });

  it('an entry is an id claim when it writes the id horizon and nothing else', () => {
    const claim = putIdHorizon({ catalog: 100, file: 200 });
    expect(isIdClaim([claim])).toBe(true);
    expect(isIdClaim([claim, claim])).toBe(true);
    expect(isIdClaim([])).toBe(false);
    expect(isIdClaim([claim, other])).toBe(false);
    expect(isIdClaim([other, claim])).toBe(false);
    expect(isIdClaim([other])).toBe(false);
  });
});

describe('system rows', () => {
  const value = (m: Mutation) => (m.type === 'put' ? m.value : new Uint8Array());

  it('the head names its snapshot, or none', () => {
    expect(headSnapshotId({ id: 9 })).toBe(9);
    expect(headSnapshotId(undefined)).toBeUndefined();
  });

  it('the writer epoch as written, or none yet', () => {
    const row = { epoch: 3, holder: 'w', since: 1 };
    expect(decodeWriterEpoch(value(putWriterEpoch(row)))).toEqual(row);
    // No epoch written yet: epoch 0, held by nobody, every writer's entries newer.
    expect(decodeWriterEpoch(undefined)).toEqual({ epoch: 0, holder: '', since: 0 });
    expect(decodeWriterEpoch(undefined)).toBe(NO_WRITER_EPOCH);
  });

  it('the id horizon as written, or none yet', () => {
    expect(decodeIdHorizon(value(putIdHorizon({ catalog: 100, file: 200 })))).toEqual({ catalog: 100, file: 200 });
    expect(decodeIdHorizon(undefined)).toBeUndefined();
    expect(Buffer.from(putIdHorizon({ catalog: 1, file: 1 }).key)).toEqual(Buffer.from(ID_HORIZON_KEY));
  });
});
