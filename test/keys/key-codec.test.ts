import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ID } from '../../keys/ids.js';
import { compareKeys, decodeKey, encodeKey, type Field, KeyFormatError, keyPrefix, prefixEnd } from '../../keys/key-codec.js';
import { SPACE_SPECS, type Space, type SpaceSpec } from '../../keys/spaces.js';

const u64 = fc.oneof(
  fc.constantFrom(0, 1, 255, 256, 2 ** 32 - 1, 2 ** 32, MAX_ID),
  fc.integer({ min: 0, max: 2 ** 31 }),
  fc.maxSafeNat(),
);
// Names: any well-formed string without NUL, including multi-byte and astral characters, and ones that open
// with a byte-order mark (U+FEFF), which a default TextDecoder drops: '\uFEFFt' decoded as 't'.
const anyName = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0'));
const name = fc.oneof(anyName, anyName.map((s) => `\uFEFF${s}`), fc.constant('\uFEFF'));

const fieldsOf = (spec: SpaceSpec) => fc.tuple(...spec.fields.map((k) => (k === 'u64' ? u64 : name))) as fc.Arbitrary<Field[]>;
const keyOf = (spec: SpaceSpec) =>
  fc.record({ fields: fieldsOf(spec), begin: spec.hasBegin ? u64 : fc.constant(undefined) });

/** The logical order keys must follow: field by field, numbers numerically, names by code point. */
function compareLogical(a: Field[], b: Field[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const c = typeof x === 'number' ? Math.sign(x - (y as number)) : Buffer.compare(Buffer.from(x), Buffer.from(y as string));
    if (c !== 0) return c;
  }
  return 0;
}

describe('key codec', () => {
  for (const spec of SPACE_SPECS.values()) {
    const space = spec.byte as Space;
    it(`${spec.name}: round-trips and preserves order`, () => {
      fc.assert(
        fc.property(keyOf(spec), keyOf(spec), (a, b) => {
          const ka = encodeKey(space, a.fields, a.begin);
          const kb = encodeKey(space, b.fields, b.begin);
          expect(decodeKey(ka)).toEqual({ space, fields: a.fields, begin: a.begin });
          const logical = compareLogical([...a.fields, a.begin ?? 0], [...b.fields, b.begin ?? 0]);
          expect(Math.sign(compareKeys(ka, kb))).toBe(logical);
        }),
        { numRuns: 300 },
      );
    });

    it(`${spec.name}: every key lies inside the prefix range of its own fields`, () => {
      fc.assert(
        fc.property(keyOf(spec), fc.nat(), (k, cut) => {
          const key = encodeKey(space, k.fields, k.begin);
          const prefix = keyPrefix(space, k.fields.slice(0, cut % (k.fields.length + 1)));
          expect(compareKeys(key, prefix)).toBeGreaterThanOrEqual(0);
          expect(compareKeys(key, prefixEnd(prefix))).toBeLessThan(0);
        }),
        { numRuns: 200 },
      );
    });
  }

  it('refuses fields that would break the order or the framing', () => {
    const column = [...SPACE_SPECS.values()].find((s) => s.name === 'Column')!.byte as Space;
    const schemaName = [...SPACE_SPECS.values()].find((s) => s.name === 'SchemaNameIndex')!.byte as Space;
    expect(() => encodeKey(column, [1, -1], 0)).toThrow(KeyFormatError);
    expect(() => encodeKey(column, [1, 1.5], 0)).toThrow(KeyFormatError);
    expect(() => encodeKey(column, [1, MAX_ID + 1], 0)).toThrow(KeyFormatError);
    expect(() => encodeKey(column, [1], 0)).toThrow(KeyFormatError);
    expect(() => encodeKey(column, [1, 2])).toThrow(KeyFormatError);
    expect(() => encodeKey(schemaName, ['a\0b'], 0)).toThrow(KeyFormatError);
    expect(() => encodeKey(schemaName, [''], 0)).toThrow(KeyFormatError);
    // Decoding bytes that are not a key is damage to the index, not a caller's mistake: CORRUPT.
    expect(() => decodeKey(encodeKey(column, [1, 2], 3).subarray(0, 20))).toThrow(expect.objectContaining({ code: 'CORRUPT' }));
  });

  it('gives every key space a distinct byte and a category', () => {
    const bytes = [...SPACE_SPECS.values()].map((s) => s.byte);
    expect(new Set(bytes).size).toBe(bytes.length);
    for (const s of SPACE_SPECS.values()) {
      expect(['versioned', 'append-only', 'singleton', 'system']).toContain(s.category);
      expect(s.hasBegin).toBe(s.category === 'versioned' || s.category === 'append-only');
    }
  });
});
