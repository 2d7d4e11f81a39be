// The bytes of the segmented log (segment-log.ts): segment names and records, in two formats
// (docs/decisions/0051). A segment holds records of one format, told by its first bytes.
//
// Format 2, what every new segment is written in: a record is whole 512-byte sectors, each
//   [u32 magic 0xFF 'S' 'T' 0x02][f64 seq][u32 sector index][u32 sector count][u32 CRC-32 of the other 508 bytes]
//   [488 bytes of the record's payload: u32 entry length, f64 written at (ms), the entry's frame, zeros]
// so every sector says on its own whether it was written (a sector of zeros was not: the magic alone has nine
// bits set, so no single flipped bit makes a written sector all zeros) and, by its CRC, whether it is whole.
// That is what lets segment space be written ahead of the records (a sync over space the file already has
// does not grow it): a crash leaves each sector of an append written or zeros, and a damaged record is
// never mistaken for one a crash cut short.
//
// Format 1, what segments written before it hold, read and never appended to: a record is a header — the
// entry's length, its seq, when it was written and a CRC-32 of those 20 bytes — then the entry's frame.
// No format-1 record starts with the format-2 magic: its first word is the entry's length, under 4 GiB.
import { crc32 } from 'node:zlib';
import type { KvSeq } from '../../keys/ids.js';
import { encodeEntry, type LogEntry } from './log-entry.js';

export const SEGMENTS_DIR = 'segments';
export const SEGMENT_SUFFIX = '.seg';

export type SegmentFormat = 1 | 2;

export const SECTOR_BYTES = 512;
const STAMP_BYTES = 24;
const PAYLOAD_BYTES = SECTOR_BYTES - STAMP_BYTES;
const MAGIC = 0xff535402;
/** Entry length and written-at, before the entry in a format-2 record's payload. */
const PREFIX_BYTES = 12;
/** A format-1 record's header. */
export const V1_HEADER_BYTES = 24;
const ZEROS = Buffer.alloc(SECTOR_BYTES);

/** How many entries `seg` holds as far as read: the last is `first + entriesIn(seg) - 1`. */
export const entriesIn = (seg: Segment): number => seg.base + seg.offsets.length;

/** One segment file, as far as this handle has read it. */
export interface Segment {
  first: KvSeq;
  name: string;
  /** The inode its offsets were read from: a segment replaced since (compaction) is read again. */
  ino: number | undefined;
  /** Its records' format, once its first bytes were read. */
  format: SegmentFormat | undefined;
  /**
   * How many of its first entries this handle holds no offset of: a segment is read from the last entry known
   * to be on disk with every record before it (segment-files.ts `startNearEnd`).
   */
  base: number;
  /** Byte offset of each record read from entry `first + base` on: entry `first + base + i` at `offsets[i]`. */
  offsets: number[];
  /** Where the records read end. */
  end: number;
  /** Whether bytes after `end` were a torn record when last read. */
  torn: boolean;
}

export const segmentName = (first: number) => `${String(first).padStart(20, '0')}${SEGMENT_SUFFIX}`;

/** The first seq a segment file name stands for, or undefined for a name that is not a segment's. */
export function segmentFirst(name: string): number | undefined {
  // Any other name, with the suffix or without, is not the one its number gives.
  const first = Number(name.slice(0, -SEGMENT_SUFFIX.length));
  return Number.isSafeInteger(first) && first >= 1 && segmentName(first) === name ? first : undefined;
}

/** The format of a segment whose first bytes are `b` (at least 4). */
export const formatOf = (b: Buffer): SegmentFormat => (b.readUInt32BE(0) === MAGIC ? 2 : 1);

const sectorCrc = (b: Buffer, at: number) => crc32(b.subarray(at + STAMP_BYTES, at + SECTOR_BYTES), crc32(b.subarray(at, at + 20)));

/** The format-2 record of one entry: whole sectors. */
export function encodeRecord(entry: LogEntry, writtenAt: number): Buffer {
  const body = encodeEntry(entry);
  const count = Math.ceil((PREFIX_BYTES + body.length) / PAYLOAD_BYTES);
  const payload = Buffer.alloc(count * PAYLOAD_BYTES);
  payload.writeUInt32BE(body.length, 0);
  payload.writeDoubleBE(writtenAt, 4);
  payload.set(body, PREFIX_BYTES);
  const out = Buffer.allocUnsafe(count * SECTOR_BYTES);
  for (let i = 0; i < count; i++) {
    const at = i * SECTOR_BYTES;
    out.writeUInt32BE(MAGIC, at);
    out.writeDoubleBE(entry.seq, at + 4);
    out.writeUInt32BE(i, at + 12);
    out.writeUInt32BE(count, at + 16);
    payload.copy(out, at + STAMP_BYTES, i * PAYLOAD_BYTES, (i + 1) * PAYLOAD_BYTES);
    out.writeUInt32BE(sectorCrc(out, at), at + 20);
  }
  return out;
}

/**
 * What a format-2 sector says of itself: never written (zeros; bytes past the end of `b` count as zeros,
 * as past the end of a file), `short` (the file ends inside it: a write that grew the file cut short), a
 * sector of record `seq`, or `bad`: bytes that are none of these.
 */
export type Sector = 'zeros' | 'short' | 'bad' | { seq: number; index: number; count: number };

export function readSector(b: Buffer, at: number): Sector {
  const n = Math.min(SECTOR_BYTES, b.length - at);
  if (n <= 0 || b.subarray(at, at + n).equals(ZEROS.subarray(0, n))) return 'zeros';
  if (n < SECTOR_BYTES) return 'short';
  if (b.readUInt32BE(at) !== MAGIC || sectorCrc(b, at) !== b.readUInt32BE(at + 20)) return 'bad';
  return { seq: b.readDoubleBE(at + 4), index: b.readUInt32BE(at + 12), count: b.readUInt32BE(at + 16) };
}

/** What the first bytes of a record say: enough to name it and tell when it was written. */
export interface RecordHead {
  seq: number;
  writtenAt: number;
  /** The record's bytes on disk. */
  bytes: number;
}

/** The bytes `decodeHead` needs. */
export const headBytes = (format: SegmentFormat) => (format === 1 ? V1_HEADER_BYTES : SECTOR_BYTES);

/** The head of the record at `at` of `b`, or undefined where its first bytes fail their check. */
export function decodeHead(format: SegmentFormat, b: Buffer, at: number): RecordHead | undefined {
  if (format === 1) {
    if (b.length - at < V1_HEADER_BYTES || crc32(b.subarray(at, at + 20)) !== b.readUInt32BE(at + 20)) return undefined;
    return { seq: b.readDoubleBE(at + 4), writtenAt: b.readDoubleBE(at + 12), bytes: V1_HEADER_BYTES + b.readUInt32BE(at) };
  }
  const s = readSector(b, at);
  if (typeof s === 'string' || s.index !== 0) return undefined;
  return { seq: s.seq, writtenAt: b.readDoubleBE(at + STAMP_BYTES + 4), bytes: s.count * SECTOR_BYTES };
}

/**
 * The entry frame a whole record holds (`record`: its bytes, of entry `seq`), or why it cannot: a format-2
 * record is checked sector by sector, so a damaged sector is named before the frame's own checksum is read.
 */
export function recordBody(format: SegmentFormat, record: Buffer, seq: number): Buffer | string {
  if (format === 1) return record.subarray(V1_HEADER_BYTES);
  const count = record.length / SECTOR_BYTES;
  const payload = Buffer.allocUnsafe(count * PAYLOAD_BYTES);
  for (let i = 0; i < count; i++) {
    const s = readSector(record, i * SECTOR_BYTES);
    if (typeof s === 'string') return `its sector ${i} ${s === 'bad' ? 'fails its checksum' : 'was not written'}`;
    if (s.seq !== seq || s.index !== i || s.count !== count) return `its sector ${i} names sector ${s.index} of ${s.count} of entry ${s.seq}`;
    record.copy(payload, i * PAYLOAD_BYTES, i * SECTOR_BYTES + STAMP_BYTES, (i + 1) * SECTOR_BYTES);
  }
  const length = payload.readUInt32BE(0);
  if (PREFIX_BYTES + length > payload.length) return `it says its entry has ${length} bytes, more than its sectors hold`;
  return payload.subarray(PREFIX_BYTES, PREFIX_BYTES + length);
}
