// One framing for every stored byte string: index values, log entries and checkpoint objects. A frame is a
// format byte, then the MessagePack payload; bytes that are not a frame of ours are refused before anything
// is decoded.
//   format 1: [1][payload]                          index values (LevelDB's own files hold them; the index
//                                                   is a cache the store can rebuild), and everything
//                                                   written before checksums existed
//   format 2: [2][CRC-32 of the payload, u32 BE][payload]
//                                                   what the store holds: log entries, checkpoint chunks and
//                                                   manifests (docs/DESIGN.md §3, integrity). CRC-32 finds every
//                                                   single-bit flip and every burst up to 32 bits, at native
//                                                   speed (zlib.crc32).
import { crc32 } from 'node:zlib';
import { packr } from './message-pack.js';

export const FRAME_V1 = 1;
export const FRAME_V2 = 2;
/** Bytes before a format-2 frame's payload: the format byte and the CRC-32. */
const CHECKED_HEADER_BYTES = 5;

/** Bytes that are not a frame this version can read; the caller names the object or key. */
export class FrameError extends Error {}

/** A format-1 frame: no checksum (index values). */
export function frame(value: unknown): Uint8Array {
  const body = packr.pack(value);
  const out = new Uint8Array(body.length + 1);
  out[0] = FRAME_V1;
  out.set(body, 1);
  return out;
}

/** A format-2 frame: the payload's CRC-32 in front of it (objects in the store). */
export function checkedFrame(value: unknown): Uint8Array {
  const body = packr.pack(value);
  const out = new Uint8Array(body.length + CHECKED_HEADER_BYTES);
  out.set(body, CHECKED_HEADER_BYTES);
  return sealChecked(out);
}

/** Writes the format-2 header in front of the payload already at `out[CHECKED_HEADER_BYTES…]`. */
function sealChecked(out: Uint8Array): Uint8Array {
  out[0] = FRAME_V2;
  new DataView(out.buffer, out.byteOffset, CHECKED_HEADER_BYTES).setUint32(1, crc32(out.subarray(CHECKED_HEADER_BYTES)));
  return out;
}

/** A list of byte-string pairs, the second of each possibly absent: a log entry's mutations. */
export type BytePairs = readonly (readonly [Uint8Array, Uint8Array | null])[];

/**
 * The bytes checkedFrame({ ...head, [last]: pairs }) makes, for a record whose last field is a long list of
 * byte pairs. msgpackr looks up every byte string among its extension classes and grows its buffer as it
 * goes, about 1 µs a string: a log entry of 100 files was 7% of its commit. Here the list is sized first and
 * written once; the head is still msgpackr's, its map header counting one field more. Byte for byte the same
 * (test/keys/framing.test.ts), so readers see no new format.
 */
export function checkedFrameEndingIn(head: Record<string, unknown>, last: string, pairs: BytePairs): Uint8Array {
  const fields = Object.keys(head).length;
  const start = packr.pack(head);
  // A fixmap header (under 15 fields) gains one without changing its size; anything else goes the long way.
  if (last in head || fields >= 15 || start[0] !== (0x80 | fields)) return checkedFrame({ ...head, [last]: pairs });
  const name = packr.pack(last);
  let size = CHECKED_HEADER_BYTES + start.length + name.length + arrayHeaderBytes(pairs.length);
  for (const [a, b] of pairs) size += 1 + binBytes(a) + (b === null ? 1 : binBytes(b));
  const out = new Uint8Array(size);
  out.set(start, CHECKED_HEADER_BYTES);
  out[CHECKED_HEADER_BYTES] = 0x80 | (fields + 1);
  let at = CHECKED_HEADER_BYTES + start.length;
  out.set(name, at);
  at += name.length;
  at = writeArrayHeader(out, at, pairs.length);
  for (const [a, b] of pairs) {
    out[at++] = 0x92;
    at = writeBin(out, at, a);
    if (b === null) out[at++] = 0xc0;
    else at = writeBin(out, at, b);
  }
  return sealChecked(out);
}

const arrayHeaderBytes = (n: number) => (n < 16 ? 1 : n < 0x10000 ? 3 : 5);

const binBytes = (b: Uint8Array) => b.length + (b.length < 0x100 ? 2 : b.length < 0x10000 ? 3 : 5);

function writeArrayHeader(out: Uint8Array, at: number, n: number): number {
  if (n < 16) out[at++] = 0x90 | n;
  else if (n < 0x10000) (out[at++] = 0xdc), (out[at++] = n >> 8), (out[at++] = n & 0xff);
  else (out[at] = 0xdd), new DataView(out.buffer, out.byteOffset).setUint32(at + 1, n), (at += 5);
  return at;
}

function writeBin(out: Uint8Array, at: number, b: Uint8Array): number {
  const n = b.length;
  if (n < 0x100) (out[at++] = 0xc4), (out[at++] = n);
  else if (n < 0x10000) (out[at++] = 0xc5), (out[at++] = n >> 8), (out[at++] = n & 0xff);
  else (out[at] = 0xc6), new DataView(out.buffer, out.byteOffset).setUint32(at + 1, n), (at += 5);
  out.set(b, at);
  return at + n;
}

/** The frame's payload, decoded; a FrameError when the bytes are not a frame of a known format, or fail its checksum. */
export function unframe(bytes: Uint8Array): unknown {
  if (bytes.length < 2) throw new FrameError(`${bytes.length} bytes is too short for a frame`);
  let body: Uint8Array;
  if (bytes[0] === FRAME_V1) body = bytes.subarray(1);
  else if (bytes[0] === FRAME_V2) {
    if (bytes.length <= CHECKED_HEADER_BYTES) throw new FrameError(`${bytes.length} bytes is too short for a checksummed frame`);
    body = bytes.subarray(CHECKED_HEADER_BYTES);
    const stored = new DataView(bytes.buffer, bytes.byteOffset, CHECKED_HEADER_BYTES).getUint32(1);
    const actual = crc32(body);
    if (stored !== actual) throw new FrameError(`checksum mismatch (stored ${hex(stored)}, the bytes give ${hex(actual)})`);
  } else throw new FrameError(`unknown format ${bytes[0]}`);
  try {
    return packr.unpack(body);
  } catch (e) {
    throw new FrameError((e as Error).message);
  }
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

/** A decoded payload that must be a plain record (what every stored value and entry is). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}
