// Thrift's compact protocol, read as Apache Thrift's generated C++ reads it — the code DuckDB reads Parquet
// footers with. A field is taken only when its id is known and its wire type is the one expected; any other is
// skipped, so a damaged type byte leaves the field unset, as it does for DuckDB. Whatever that code would throw
// on (an unknown type, a varint past ten bytes, a negative size, bytes that run out, nesting past Thrift's
// limit) throws ThriftError here.

export class ThriftError extends Error {}

/** Compact-protocol wire types (the low nibble of a field header). */
export const enum Wire {
  Stop = 0,
  True = 1,
  False = 2,
  Byte = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  Double = 7,
  Binary = 8,
  List = 9,
  Set = 10,
  Map = 11,
  Struct = 12,
}

/** Apache Thrift's default limit on how deep skip() recurses. */
const MAX_DEPTH = 64;

export class CompactReader {
  private at = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get position(): number {
    return this.at;
  }

  /**
   * Reads a struct: for each field, `field(id, wire)` reads it and returns true, or returns false to have it
   * skipped. Booleans are carried in the header: `field` gets True or False and reads nothing.
   */
  struct(field: (id: number, wire: Wire) => boolean, depth = 0): void {
    if (depth > MAX_DEPTH) throw new ThriftError('nested too deep');
    let last = 0;
    for (;;) {
      const header = this.byte();
      const wire = header & 0x0f;
      if (wire === Wire.Stop) return;
      if (wire > Wire.Struct) throw new ThriftError(`unknown wire type ${wire}`);
      const delta = header >> 4;
      const id = delta === 0 ? this.i16() : last + delta;
      last = id;
      if (!field(id, wire)) this.skip(wire, depth + 1, true);
    }
  }

  /** A list's length and element type (a set's too). */
  listHeader(): { size: number; wire: Wire } {
    const header = this.byte();
    const size = header >> 4 === 15 ? this.size() : header >> 4;
    const wire = header & 0x0f;
    if (wire > Wire.Struct) throw new ThriftError(`unknown wire type ${wire}`);
    return { size, wire };
  }

  i16(): number {
    return (this.i32() << 16) >> 16;
  }

  /** An i32 as Thrift reads it: the varint's low 32 bits, zigzag-decoded. */
  i32(): number {
    const n = this.varint();
    return (n >>> 1) ^ -(n & 1);
  }

  binary(): Uint8Array {
    const size = this.size();
    return this.take(size);
  }

  /** Skips a value of type `wire`; `inField`: a boolean field's value is in its header, not in a byte. */
  skip(wire: Wire, depth: number, inField: boolean): void {
    if (depth > MAX_DEPTH) throw new ThriftError('nested too deep');
    switch (wire) {
      case Wire.True:
      case Wire.False:
        if (!inField) this.byte();
        return;
      case Wire.Byte:
        this.byte();
        return;
      case Wire.I16:
      case Wire.I32:
      case Wire.I64:
        this.varint();
        return;
      case Wire.Double:
        this.take(8);
        return;
      case Wire.Binary:
        this.binary();
        return;
      case Wire.List:
      case Wire.Set: {
        const { size, wire: element } = this.listHeader();
        for (let i = 0; i < size; i++) this.skip(element, depth + 1, false);
        return;
      }
      case Wire.Map: {
        const size = this.size();
        if (size === 0) return;
        const kinds = this.byte();
        const [key, value] = [kinds >> 4, kinds & 0x0f];
        if (key > Wire.Struct || value > Wire.Struct) throw new ThriftError('unknown wire type in a map');
        for (let i = 0; i < size; i++) {
          this.skip(key, depth + 1, false);
          this.skip(value, depth + 1, false);
        }
        return;
      }
      case Wire.Struct:
        this.struct(() => false, depth);
        return;
      default:
        throw new ThriftError(`cannot skip wire type ${wire}`);
    }
  }

  /** The bytes from `start` to where the reader is. */
  since(start: number): Uint8Array {
    return this.bytes.subarray(start, this.at);
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

  /** A size (of a binary, a list or a map): a varint, not zigzag-encoded, as a signed 32-bit number. */
  private size(): number {
    const n = this.varint();
    if (n < 0) throw new ThriftError('a negative size');
    return n;
  }

  /**
   * A varint of at most ten bytes, as the signed 32-bit number of its low 32 bits: what Thrift keeps of one it
   * reads as an i16, an i32 or a size (an i64 is only skipped here).
   */
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
