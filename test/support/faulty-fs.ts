// Fault injection at the file system, for what bypasses the ObjectStore: the segments of a segmented log
// (FaultyStore sees only objects). It wraps node:fs's writeSync, readSync and fdatasync (in both its forms)
// for the files of a `segments/` directory, and readdirSync and fsync for the directory itself, and publishes the wrappers to
// every ES module's `import * as fs` view.
import * as fsCjs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';

export interface FsFaults {
  /** Before bytes are written to a segment (an append, or the first record of a new segment); may throw. */
  beforeSegmentWrite?: (bytes: Buffer) => void;
  /** The most bytes a write to a segment takes at once (a short write, which POSIX allows), or no limit. */
  segmentWriteLimit?: () => number | undefined;
  /** After a segment's fdatasync has completed (a durable append is done). */
  afterSegmentSync?: () => void;
  /** An error a segment's fdatasync reports instead of its own outcome (the bytes were written), or none. */
  segmentSyncError?: () => NodeJS.ErrnoException | undefined;
  /** Given the bytes of each read of a segment as it returns them, to change them (a file rewritten between two reads). */
  afterSegmentRead?: (bytes: Buffer) => void;
  /** The names a listing of the segment directory gives, from the names it holds (a file system's own order). */
  segmentListing?: (names: string[]) => string[];
  /** Asked at each fsync of the segment directory (a new segment linked in, a compacted one renamed): an error it reports instead, or none. */
  segmentDirSyncError?: () => NodeJS.ErrnoException | undefined;
}

const SEGMENTS = `${path.sep}segments${path.sep}`;

export function injectFsFaults(faults: FsFaults): void {
  const fs = createRequire(import.meta.url)('node:fs') as typeof fsCjs;
  const segmentFds = new Set<number>();
  const dirFds = new Set<number>();
  const { openSync, closeSync, writeSync, readSync, readdirSync, fdatasync, fdatasyncSync, fsync } = fs;
  fs.readdirSync = ((dir: fsCjs.PathLike, ...rest: unknown[]) => {
    const names = (readdirSync as (...a: unknown[]) => string[])(dir, ...rest);
    return `${String(dir)}${path.sep}`.endsWith(SEGMENTS) && faults.segmentListing !== undefined ? faults.segmentListing(names) : names;
  }) as typeof fs.readdirSync;
  fs.openSync = ((file: fsCjs.PathLike, ...rest: unknown[]) => {
    const fd = (openSync as (...a: unknown[]) => number)(file, ...rest);
    const name = String(file);
    if (name.includes(SEGMENTS) && !name.endsWith(`${path.sep}LOCK`)) segmentFds.add(fd);
    if (`${name}${path.sep}`.endsWith(SEGMENTS)) dirFds.add(fd);
    return fd;
  }) as typeof fs.openSync;
  // A closed descriptor's number is soon another file's.
  fs.closeSync = ((fd: number) => {
    segmentFds.delete(fd);
    dirFds.delete(fd);
    closeSync(fd);
  }) as typeof fs.closeSync;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    if (segmentFds.has(fd)) {
      faults.beforeSegmentWrite?.(rest[0] as Buffer);
      const limit = faults.segmentWriteLimit?.();
      // (buffer, offset, length, position): the form the segmented log writes in.
      if (limit !== undefined && typeof rest[2] === 'number') rest[2] = Math.min(rest[2], limit);
    }
    return (writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  fs.readSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number | null) => {
    const n = readSync(fd, buffer, offset, length, position);
    if (segmentFds.has(fd)) faults.afterSegmentRead?.(buffer.subarray(offset, offset + n));
    return n;
  }) as typeof fs.readSync;
  fs.fdatasync = ((fd: number, callback: (e: NodeJS.ErrnoException | null) => void) =>
    fdatasync(fd, (e) => {
      const injected = segmentFds.has(fd) ? faults.segmentSyncError?.() : undefined;
      if (injected !== undefined) return callback(injected);
      if (e === null && segmentFds.has(fd)) faults.afterSegmentSync?.();
      callback(e);
    })) as typeof fs.fdatasync;
  fs.fdatasyncSync = ((fd: number) => {
    fdatasyncSync(fd);
    if (!segmentFds.has(fd)) return;
    const injected = faults.segmentSyncError?.();
    if (injected !== undefined) throw injected;
    faults.afterSegmentSync?.();
  }) as typeof fs.fdatasyncSync;
  fs.fsync = ((fd: number, callback: (e: NodeJS.ErrnoException | null) => void) =>
    fsync(fd, (e) => callback((dirFds.has(fd) ? faults.segmentDirSyncError?.() : undefined) ?? e))) as typeof fs.fsync;
  syncBuiltinESMExports();
}
