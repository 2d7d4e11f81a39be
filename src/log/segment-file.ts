// The bytes of the segmented log (segment-log.ts): segment names and records. A record is a header — the
// entry's length, its seq, when it was written and a CRC-32 of those 20 bytes — then the entry's own
// checksummed frame (log-entry.ts), which names its seq again.
import { crc32 } from 'node:zlib';
import type { KvSeq } from '../../keys/ids.js';
import { encodeEntry, type LogEntry } from './log-entry.js';

export const SEGMENTS_DIR = 'segments';
export const SEGMENT_SUFFIX = '.seg';
export const HEADER_BYTES = 24;

/** One segment file, as far as this handle has read it. */
export interface Segment {
  first: KvSeq;
  name: string;
  /** The inode its offsets were read from: a segment replaced since (compaction) is read again. */
  ino: number | undefined;
  /** Byte offset of each record read, entry `first + i` at `offsets[i]`. */
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

/** The record of one entry: header and frame. */
export function encodeRecord(entry: LogEntry, writtenAt: number): Buffer {
  const body = encodeEntry(entry);
  const out = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  out.writeUInt32BE(body.length, 0);
  out.writeDoubleBE(entry.seq, 4);
  out.writeDoubleBE(writtenAt, 12);
  out.writeUInt32BE(crc32(out.subarray(0, 20)), 20);
  out.set(body, HEADER_BYTES);
  return out;
}

export interface Header {
  length: number;
  seq: number;
  writtenAt: number;
}

export function decodeHeader(b: Buffer, at: number): Header | undefined {
  if (crc32(b.subarray(at, at + 20)) !== b.readUInt32BE(at + 20)) return undefined;
  return { length: b.readUInt32BE(at), seq: b.readDoubleBE(at + 4), writtenAt: b.readDoubleBE(at + 12) };
}

export const allZero = (b: Buffer) => b.every((x) => x === 0);

