// The compact-protocol reader takes only bytes that leave no choice: where Thrift's own lenient code would skip,
// replace or reinterpret, and two readers could fall out of step, it refuses.
import { describe, expect, it } from 'vitest';
import { readCompact, type Shape, ThriftError } from '../../src/sql/thrift-compact.js';

// Compact-protocol pieces, written by hand.
const zigzag = (n: number) => (n >= 0 ? n * 2 : -n * 2 - 1);
function varint(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}
const field = (delta: number, wire: number) => [(delta << 4) | wire];
const longField = (id: number, wire: number) => [wire, ...varint(zigzag(id))];
const i32 = (n: number) => varint(zigzag(n));
const binary = (s: string) => [...varint(Buffer.byteLength(s)), ...Buffer.from(s)];
const STOP = 0;
const [I32, BINARY, LIST, STRUCT, TRUE] = [5, 8, 9, 12, 1];

const shape: Shape = {
  kind: 'struct',
  fields: {
    1: { kind: 'i32' },
    2: { kind: 'binary' },
    3: { kind: 'list', of: { kind: 'struct', fields: { 1: { kind: 'i32' } }, required: [1] } },
    4: { kind: 'bool' },
    5: { kind: 'struct', fields: { 1: { kind: 'i32' }, 2: { kind: 'i32' } }, union: true },
  },
  required: [1],
};
const read = (bytes: number[]) => readCompact(Uint8Array.from(bytes), shape);

describe('readCompact', () => {
  it('reads fields by short and long headers, lists of structs, booleans in the header and a union of one', () => {
    const bytes = [
      ...field(1, I32), ...i32(-7),
      ...field(1, BINARY), ...binary('héllo'),
      ...field(1, LIST), (2 << 4) | STRUCT, ...field(1, I32), ...i32(1), STOP, ...field(1, I32), ...i32(300), STOP,
      ...longField(5, STRUCT), ...field(2, I32), ...i32(9), STOP,
      ...longField(4, TRUE),
      STOP,
    ];
    expect(read(bytes)).toEqual({ 1: -7, 2: new TextEncoder().encode('héllo'), 3: [{ 1: 1 }, { 1: 300 }], 4: true, 5: { 2: 9 } });
  });

  it('keeps a long varint as Thrift keeps an i32: its low 32 bits', () => {
    // 2^32 + 6 zigzag-encoded as a ten-byte varint reads as 3.
    const ten = [0x86, 0x80, 0x80, 0x80, 0x90, 0x80, 0x80, 0x80, 0x80, 0x00];
    expect(read([...field(1, I32), ...ten, STOP])).toEqual({ 1: 3 });
    expect(() => read([...field(1, I32), ...ten.slice(0, 9).map((b) => b | 0x80), 0x80, 0x00, STOP])).toThrow(ThriftError);
  });

  it('refuses what Thrift would skip, reinterpret or replace: an unknown field, a wire type not the expected one, a list declaring other elements, a field twice', () => {
    const good = [...field(1, I32), ...i32(1)];
    for (const [what, bytes] of [
      ['an unknown field', [...good, ...field(8, I32), ...i32(2), STOP]],
      ['an i16 where an i32 is expected', [...field(1, 4), ...i32(1), STOP]],
      ['a list declaring bytes where structs are expected', [...good, ...field(2, LIST), (1 << 4) | 3, 0x07, STOP]],
      ['a field twice', [...good, ...longField(1, I32), ...i32(2), STOP]],
      ['a required field missing', [...field(2, BINARY), ...binary('x'), STOP]],
      ['a union of two', [...good, ...field(4, STRUCT), ...field(1, I32), ...i32(1), ...field(1, I32), ...i32(2), STOP, STOP]],
      ['a union of none', [...good, ...field(4, STRUCT), STOP, STOP]],
      ['a negative size', [...good, ...field(1, BINARY), 0xff, 0xff, 0xff, 0xff, 0x0f, STOP]],
      ['bytes that end inside a value', [...good, ...field(1, BINARY), ...varint(5), 0x61]],
      ['no stop', good],
    ] as const) {
      expect(() => read([...bytes]), what).toThrow(ThriftError);
    }
  });

  it('wraps a field id past 32767 as Thrift does, and refuses it: no field of the shape has that id', () => {
    // A long-form id of 32767 and a delta of 5: Thrift's i16 makes it -32764, not 32772.
    expect(() => read([...longField(32767, I32), ...i32(1), ...field(5, I32), ...i32(2), STOP])).toThrow(/field 32767/);
    const wrapsTo4 = { kind: 'struct', fields: { 32767: { kind: 'i32' }, [-32765]: { kind: 'i32' } } } as const satisfies Shape;
    expect(readCompact(Uint8Array.from([...longField(32767, I32), ...i32(1), ...field(4, I32), ...i32(2), STOP]), wrapsTo4)).toEqual({ 32767: 1, [-32765]: 2 });
  });
});
