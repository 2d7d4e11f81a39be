// Column type names as DuckLake writes them (keys/column-types.ts): what a caller may spell a type as, the one
// name it is stored under, and which changes of type files already written can take (widening only).
import { describe, expect, it } from 'vitest';
import { CHILD_NAMES, columnType, isWidening, nestedType, PRIMITIVE_TYPES, wideningsOf } from '../../keys/column-types.js';

describe('nestedType', () => {
  it('names struct, list and map in any case and with spaces around', () => {
    expect(nestedType(' STRUCT ')).toBe('struct');
    expect(nestedType('List')).toBe('list');
    expect(nestedType('\tmap\n')).toBe('map');
  });

  it('is undefined for a primitive or an unknown name', () => {
    expect(nestedType('int32')).toBeUndefined();
    expect(nestedType('array')).toBeUndefined();
    expect(nestedType('')).toBeUndefined();
  });
});

describe('the children of a nested column', () => {
  it('are one `element` for a list, `key` and `value` for a map, and any names for a struct', () => {
    expect(CHILD_NAMES).toStrictEqual({ struct: undefined, list: ['element'], map: ['key', 'value'] });
  });
});

describe('columnType', () => {
  it('gives every primitive its lower-case name, whatever the case and spaces it was written in', () => {
    for (const t of PRIMITIVE_TYPES) {
      expect(columnType(t)).toBe(t);
      expect(columnType(`  ${t.toUpperCase()} `)).toBe(t);
    }
  });

  it('is undefined for a name that is no DuckLake type', () => {
    for (const t of ['string', 'int', 'integer', 'varchar2', 'decimal', 'struct', '']) expect(columnType(t)).toBeUndefined();
  });

  it('writes a decimal as decimal(p,s), without spaces', () => {
    expect(columnType('DECIMAL(10, 2)')).toBe('decimal(10,2)');
    expect(columnType(' decimal(18,3) ')).toBe('decimal(18,3)');
  });

  it('takes a width from 1 to 38 and a scale up to the width, as DuckDB does', () => {
    expect(columnType('decimal(1,0)')).toBe('decimal(1,0)');
    expect(columnType('decimal(38,0)')).toBe('decimal(38,0)');
    expect(columnType('decimal(38,38)')).toBe('decimal(38,38)');
    expect(columnType('decimal(5,5)')).toBe('decimal(5,5)');
    expect(columnType('decimal(0,0)')).toBeUndefined();
    expect(columnType('decimal(39,0)')).toBeUndefined();
    expect(columnType('decimal(5,6)')).toBeUndefined();
    expect(columnType('decimal(100,2)')).toBeUndefined();
    expect(columnType('mydecimal(10,2)')).toBeUndefined();
    expect(columnType('decimal(10,2)[]')).toBeUndefined();
  });
});

describe('widening', () => {
  it('lets an integer widen to a wider one and a float32 to a float64', () => {
    expect(isWidening('int8', 'int64')).toBe(true);
    expect(isWidening('int32', 'int64')).toBe(true);
    expect(isWidening('uint16', 'uint32')).toBe(true);
    expect(isWidening('float32', 'float64')).toBe(true);
  });

  it('refuses a narrowing, a change of kind, and any change from a type that widens to nothing', () => {
    expect(isWidening('int64', 'int32')).toBe(false);
    expect(isWidening('int16', 'uint16')).toBe(false);
    expect(isWidening('float64', 'float32')).toBe(false);
    expect(isWidening('int32', 'varchar')).toBe(false);
    expect(isWidening('varchar', 'blob')).toBe(false);
    expect(isWidening('int64', 'int64')).toBe(false);
  });

  it('lists what a type widens to for messages, nothing for one that widens to nothing', () => {
    expect(wideningsOf('int32')).toEqual(['int64']);
    expect(wideningsOf('float32')).toEqual(['float64']);
    expect(wideningsOf('varchar')).toEqual([]);
    expect(wideningsOf('int64')).toEqual([]);
  });

  it('allows exactly the integer and float promotions of DuckLake\'s TypePromotionIsAllowed, for every pair of types', () => {
    // DuckLake's rule (ducklake_table_entry.cpp), in Strata's names. DuckLake also takes timestamp to timestamptz,
    // a reinterpretation rather than a widening, which Strata does not.
    const ducklake: Record<string, string[]> = {
      int8: ['int16', 'int32', 'int64'],
      int16: ['int32', 'int64'],
      int32: ['int64'],
      uint8: ['int16', 'int32', 'int64', 'uint16', 'uint32', 'uint64'],
      uint16: ['int32', 'int64', 'uint32', 'uint64'],
      uint32: ['uint64'],
      float32: ['float64'],
    };
    for (const from of PRIMITIVE_TYPES) {
      expect([...wideningsOf(from)].sort(), from).toEqual([...(ducklake[from] ?? [])].sort());
      for (const to of PRIMITIVE_TYPES) expect(isWidening(from, to), `${from} → ${to}`).toBe(ducklake[from]?.includes(to) ?? false);
    }
  });

  it('every widening it allows between integers keeps every value of the narrower type', () => {
    const range = (t: string): [bigint, bigint] | undefined => {
      const m = /^(u?)int(\d+)$/.exec(t);
      if (!m) return undefined;
      const bits = BigInt(m[2]!);
      return m[1] === 'u' ? [0n, 2n ** bits - 1n] : [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n];
    };
    for (const from of PRIMITIVE_TYPES) {
      for (const to of wideningsOf(from)) {
        const [a, b] = [range(from), range(to)];
        if (a === undefined || b === undefined) continue;
        expect(b[0] <= a[0] && a[1] <= b[1], `${from} → ${to}`).toBe(true);
      }
    }
  });
});
