// Thrift's compact protocol, read against a declared shape and refused at the first byte that strays from it.
// What this reads must be what DuckDB's own Thrift code reads from the same bytes, and that code is lenient: it
// skips a field it does not know or whose wire type is not the expected one, reads a list's elements as the
// expected type whatever the list declares, and lets a repeated field replace the first. Each of those is a
// place where two readers can fall out of step (a footer crafted so would show DuckDB a second schema this
// never saw). So this reads only what leaves no choice: every field known, with its expected wire type, once;
// every list declaring its expected element type; required fields present; a union with one member. Then both
// readers consume the same bytes as the same values. Anything else throws ThriftError, and the caller asks DuckDB.

export class ThriftError extends Error {}

/** What a value is declared to be; a struct by its fields' ids. */
export type Shape =
  | { kind: 'bool' | 'i8' | 'i16' | 'i32' | 'i64' | 'double' | 'binary' }
  | { kind: 'list'; of: Shape }
  | { kind: 'struct'; fields: Readonly<Record<number, Shape>>; required?: readonly number[]; union?: true };

/** A value read: a struct's fields by id; an i64 or a double is checked and left out (nothing here needs one). */
export type Value = boolean | number | null | Uint8Array | Value[] | StructValue;
export interface StructValue {
  [id: number]: Value;
}

/** Compact-protocol wire types (the low nibble of a field header, or of a list header). */
const WIRE = { bool: 1, i8: 3, i16: 4, i32: 5, i64: 6, double: 7, binary: 8, list: 9, struct: 12 } as const;
const TRUE = 1;
const FALSE = 2;
const STOP = 0;

/** The value of `shape` at the start of `bytes`. */
export function readCompact(bytes: Uint8Array, shape: Shape): Value {
  return new CompactReader(bytes).value(shape);
}

class CompactReader {
  private at = 0;

  constructor(private readonly bytes: Uint8Array) {}

  value(shape: Shape): Value {
    switch (shape.kind) {
      case 'bool':
        throw new ThriftError('a boolean outside a struct field');
      case 'i8':
        return (this.byte() << 24) >> 24;
      case 'i16':
        return (this.i32() << 16) >> 16;
      case 'i32':
        return this.i32();
      case 'i64':
        this.varint();
        return null;
      case 'double':
        this.take(8);
        return null;
      case 'binary':
        return this.take(this.size());
      case 'list':
        return this.list(shape.of);
      case 'struct':
        return this.struct(shape);
    }
  }

  private list(of: Shape): Value[] {
    const header = this.byte();
    if ((header & 0x0f) !== WIRE[of.kind]) throw new ThriftError(`a list declaring elements of wire type ${header & 0x0f}`);
    const size = header >> 4 === 15 ? this.size() : header >> 4;
    const out: Value[] = [];
    for (let i = 0; i < size; i++) out.push(this.value(of));
    return out;
  }

  private struct(shape: Extract<Shape, { kind: 'struct' }>): StructValue {
    const out: StructValue = {};
    let last = 0;
    for (;;) {
      const header = this.byte();
      const wire = header & 0x0f;
      if (wire === STOP) break;
      const delta = header >> 4;
      // Thrift keeps field ids in an i16: a delta past 32767 wraps, as it does there.
      const id = delta === 0 ? (this.i32() << 16) >> 16 : ((last + delta) << 16) >> 16;
      last = id;
      const field = shape.fields[id];
      if (field === undefined) throw new ThriftError(`field ${id}, which this does not read`);
      if (id in out) throw new ThriftError(`field ${id} twice`);
      if (field.kind === 'bool') {
        if (wire !== TRUE && wire !== FALSE) throw new ThriftError(`field ${id} of wire type ${wire}, not a boolean`);
        out[id] = wire === TRUE;
        continue;
      }
      if (wire !== WIRE[field.kind]) throw new ThriftError(`field ${id} of wire type ${wire}, not ${WIRE[field.kind]}`);
      out[id] = this.value(field);
    }
    const missing = shape.required?.find((id) => !(id in out));
    if (missing !== undefined) throw new ThriftError(`required field ${missing} missing`);
    if (shape.union && Object.keys(out).length !== 1) throw new ThriftError('a union without exactly one member');
    return out;
  }

  /** An i32 as Thrift reads it: the varint's low 32 bits, zigzag-decoded. */
  private i32(): number {
    const n = this.varint();
    return (n >>> 1) ^ -(n & 1);
  }

  /** A size (of a binary or a list): a varint, not zigzag-encoded; a negative one is refused, as there. */
  private size(): number {
    const n = this.varint();
    if (n < 0) throw new ThriftError('a negative size');
    return n;
  }

  private byte(): number {
    if (this.at >= this.bytes.length) throw new ThriftError('the bytes end inside a value');
    return this.bytes[this.at++]!;
  }

  private take(n: number): Uint8Array {
    if (this.at + n > this.bytes.length) throw new ThriftError('the bytes end inside a value');
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** A varint of at most ten bytes, as the signed 32-bit number of its low 32 bits (what Thrift keeps of an i32). */
  private varint(): number {
    let low = 0;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      if (i < 5) low |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) return low | 0;
    }
    throw new ThriftError('a varint of more than ten bytes');
  }
}
