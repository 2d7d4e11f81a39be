// What the catalog records of a data or delete file's bytes — its size and, when its writer gave one, its
// CRC-32 — and the one comparison of those with the bytes a store holds (decision 0013). Queries check a
// file the first time a process reads it; `verify({ files })` checks every file a retained row names.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
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

/** bytesMismatch of a local file, read as a stream (only stat'ed when the record has no CRC). */
export async function localMismatch(file: RecordedFile, local: string): Promise<string | undefined> {
  if (file.contentCrc32 === null) return bytesMismatch(file, (await stat(local)).size, null);
  let size = 0;
  let value = 0;
  for await (const chunk of createReadStream(local, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    value = crc32(chunk, value);
  }
  return bytesMismatch(file, size, value);
}

const hex = (n: number) => n.toString(16).padStart(8, '0');
