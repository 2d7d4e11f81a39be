// What the catalog records of a data or delete file's bytes — its size and, when its writer gave one, its
// CRC-32 — and the one comparison of those with the bytes a store holds (decision 0013). Queries check a
// file the first time a process reads it; `verify({ files })` checks every file a retained row names.
import { closeSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { crc32 } from 'node:zlib';

/** A file as the catalog records it: its store key and what it knows of its bytes. */
export interface RecordedFile {
  key: string;
  fileSizeBytes: number;
  /** null: the engine that wrote it gave none, and only the size is checked. */
  contentCrc32: number | null;
}

/** How bytes of `size` (and CRC `crc`, when computed) differ from the record, or undefined when they do not. */
export function bytesMismatch(file: RecordedFile, size: number, crc: number | null): string | undefined {
  if (size !== file.fileSizeBytes) return `the catalog records ${file.fileSizeBytes} bytes; the file has ${size}`;
  if (crc !== null && file.contentCrc32 !== null && crc !== file.contentCrc32) {
    return `the catalog records CRC-32 ${hex(file.contentCrc32)} of its ${size} bytes; they have ${hex(crc)}`;
  }
  return undefined;
}

/** bytesMismatch of bytes in memory. */
export const bodyMismatch = (file: RecordedFile, body: Uint8Array): string | undefined =>
  bytesMismatch(file, body.length, file.contentCrc32 === null ? null : crc32(body));

/**
 * Bytes read at a time while checking a local file. Each read is synchronous: through a stream every chunk
 * is a trip through libuv's pool, which cost more than reading it (a 3 MiB file in the page cache: 6–26 ms
 * as a stream, 0.8–2.1 ms this way), and a query waits for the check of every file it reads for the first
 * time. A turn of the event loop before each read keeps a large file from holding the thread, and lets a
 * query that checks beside DuckDB's read hand DuckDB its statement before the first read.
 */
const CHECK_CHUNK_BYTES = 1 << 20;

/** bytesMismatch of a local file, read through (only stat'ed when the record has no CRC). */
export async function localMismatch(file: RecordedFile, local: string): Promise<string | undefined> {
  if (file.contentCrc32 === null) return bytesMismatch(file, (await stat(local)).size, null);
  const fd = openSync(local, 'r');
  try {
    const chunk = Buffer.allocUnsafe(CHECK_CHUNK_BYTES);
    let size = 0;
    let value = 0;
    for (;;) {
      await yieldTurn();
      const n = readSync(fd, chunk, 0, CHECK_CHUNK_BYTES, size);
      if (n === 0) break;
      value = crc32(chunk.subarray(0, n), value);
      size += n;
    }
    return bytesMismatch(file, size, value);
  } finally {
    closeSync(fd);
  }
}

const hex = (n: number) => n.toString(16).padStart(8, '0');
