// A segmented log's records as tests reach into them: where each entry's record is in the segment files, and
// the files with one record's bytes replaced (damaged, cut short, removed or misplaced).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { kvSeq, snapshotId } from '../../keys/ids.js';
import type { LogEntry } from '../../src/log/log-entry.js';
import { HEADER_BYTES, SEGMENTS_DIR } from '../../src/log/segment-file.js';

export interface Span {
  file: string;
  offset: number;
  length: number;
}

/**
 * Where each entry's record is, read from the segment files as they are: a header that fails its CRC (earlier
 * damage) is stepped over a byte at a time until the next sound one.
 */
export function spans(root: string): Map<number, Span> {
  const dir = path.join(root, SEGMENTS_DIR);
  const out = new Map<number, Span>();
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.seg')).sort()) {
    const file = path.join(dir, name);
    const b = fs.readFileSync(file);
    for (let at = 0; at + HEADER_BYTES <= b.length; ) {
      if (crc32(b.subarray(at, at + 20)) !== b.readUInt32BE(at + 20)) {
        at++;
        continue;
      }
      const length = HEADER_BYTES + b.readUInt32BE(at);
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
