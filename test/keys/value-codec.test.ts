import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAME_V1 } from '../../keys/framing.js';
import { tableEntity } from '../../keys/relations.js';
import { catalogId } from '../../keys/ids.js';
import { decodeValue, encodeValue, ValueDecodeError } from '../../keys/value-codec.js';

const key = tableEntity(catalogId(7)).key(3);

describe('value codec', () => {
  it('round-trips records behind the format byte', () => {
    const row = fc.record({
      name: fc.string(),
      end: fc.option(fc.maxSafeNat()),
      count: fc.maxSafeNat(),
      flag: fc.boolean(),
      text: fc.option(fc.string()),
    });
    fc.assert(
      fc.property(row, (r) => {
        const bytes = encodeValue(r);
        expect(bytes[0]).toBe(FRAME_V1);
        expect(decodeValue(key, bytes)).toEqual(r);
      }),
    );
  });

  it('reports undecodable bytes as an error naming the key, never a crash', () => {
    for (const bad of [new Uint8Array([]), new Uint8Array([9, 1, 2]), new Uint8Array([FRAME_V1, 0xc1]), encodeValue(5), encodeValue(undefined)]) {
      let err: unknown;
      try {
        decodeValue(key, bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ValueDecodeError);
      expect((err as Error).message).toContain('Table[7,@3]');
    }
  });
});
