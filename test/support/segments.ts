// A segmented log's records as tests reach into them: where each entry's record is in the segment files, and
// the files with one record's bytes replaced (damaged, cut short, removed or misplaced).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { kvSeq, snapshotId } from '../../keys/ids.js';
import { encodeEntry, type LogEntry } from '../../src/log/log-entry.js';
import { formatOf, readSector, SECTOR_BYTES, SEGMENTS_DIR, V1_HEADER_BYTES } from '../../src/log/segment-file.js';

export interface Span {
  file: string;
  offset: number;
  length: number;
}

/**
 * Where each entry's record is, read from the segment files as they are: what fails its check (earlier
 * damage) is stepped over (a sector, or in an old segment a byte, at a time) until the next sound record.
 */
export function spans(root: string): Map<number, Span> {
  const dir = path.join(root, SEGMENTS_DIR);
  const out = new Map<number, Span>();
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.seg')).sort()) {
    const file = path.join(dir, name);
    const b = fs.readFileSync(file);
    if (b.length >= 4 && formatOf(b) === 2) {
      for (let at = 0; at < b.length; ) {
        const s = readSector(b, at);
        if (typeof s === 'string' || s.index !== 0) {
          at += SECTOR_BYTES;
          continue;
        }
        out.set(s.seq, { file, offset: at, length: s.count * SECTOR_BYTES });
        at += s.count * SECTOR_BYTES;
      }
      continue;
    }
    for (let at = 0; at + V1_HEADER_BYTES <= b.length; ) {
      if (crc32(b.subarray(at, at + 20)) !== b.readUInt32BE(at + 20)) {
        at++;
        continue;
      }
      const length = V1_HEADER_BYTES + b.readUInt32BE(at);
      out.set(b.readDoubleBE(at + 4), { file, offset: at, length });
      at += length;
    }
  }
  return out;
}

export function span(root: string, seq: number): Span {
  const s = spans(root).get(seq);
  if (s === undefined) throw new Error(`no record of entry ${seq} in ${root}`);
  return s;
}

/**
 * The record of an entry in the format segments had before decision 0051 (header: entry length, seq,
 * written at, CRC-32 of those 20 bytes; then the frame), written here from its description, not from the code.
 */
export function formatOneRecord(e: LogEntry, writtenAt: number): Buffer {
  const body = encodeEntry(e);
  const header = Buffer.alloc(24);
  header.writeUInt32BE(body.length, 0);
  header.writeDoubleBE(e.seq, 4);
  header.writeDoubleBE(writtenAt, 12);
  header.writeUInt32BE(crc32(header.subarray(0, 20)), 20);
  return Buffer.concat([header, body]);
}

/** A format-2 record's sectors made to name entry `seq`, their checksums made good: a frame under another's name. */
export function restamp(record: Buffer, seq: number): Buffer {
  for (let at = 0; at < record.length; at += SECTOR_BYTES) {
    record.writeDoubleBE(seq, at + 4);
    record.writeUInt32BE(crc32(record.subarray(at + 24, at + SECTOR_BYTES), crc32(record.subarray(at, at + 20))), at + 20);
  }
  return record;
}

/** The file with the record's bytes replaced by `bytes` (shorter, longer or none). */
export function splice(s: Span, bytes: Uint8Array): void {
  const b = fs.readFileSync(s.file);
  fs.writeFileSync(s.file, Buffer.concat([b.subarray(0, s.offset), bytes, b.subarray(s.offset + s.length)]));
}


/** A commit entry with one put of `valueBytes` bytes, its own txn: what tests append to a segmented log. */
export function entry(seq: number, valueBytes = 40): LogEntry {
  return {
    seq: kvSeq(seq),
    kind: 'commit',
    epoch: 0,
    snapshots: [snapshotId(seq)],
    txn: randomUUID(),
    prev: '',
    mutations: [{ type: 'put', key: Uint8Array.of(1, seq & 0xff), value: new Uint8Array(valueBytes).fill(seq & 0xff) }],
  };
}
