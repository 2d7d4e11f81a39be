// The commit log of a directory store as a test inspects it: in whichever layout the store was created
// with, read through the layout's own code (no test counts files under `log/` or `segments/`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kvSeq } from '../../keys/ids.js';
import type { CommitLog } from '../../src/log/commit-log.js';
import { decodeEntry, encodeEntry, type LogEntry } from '../../src/log/log-entry.js';
import { logObjectKey } from '../../src/log/object-log.js';
import { type LogLayout, openLog } from '../../src/log/open-log.js';
import { decodeHead, encodeRecord, formatOf, recordBody } from '../../src/log/segment-file.js';
import { SegmentLog } from '../../src/log/segment-log.js';
import { DirectoryStore } from '../../src/store/directory-store.js';
import { span, splice } from './segments.js';

export async function withStoreLog<T>(root: string, fn: (log: CommitLog) => Promise<T>): Promise<T> {
  const log = await openLog(new DirectoryStore(root), { requested: undefined, mayCreate: false, sync: true });
  try {
    return await fn(log);
  } finally {
    log.close?.();
  }
}

/** How many entries the log of the store at `root` has. */
export const logHead = (root: string): Promise<number> => withStoreLog(root, (log) => log.head(kvSeq(0)));

/** Which layout the log of the store at `root` has (what `log-layout` records; objects if nothing does). */
export async function layoutOf(root: string): Promise<LogLayout> {
  return (await withStoreLog(root, async (log) => log)) instanceof SegmentLog ? 'segments' : 'objects';
}

/**
 * Entry `seq` as `change` makes it (a checksummed entry that says something else), or taken out of the log
 * (undefined), whichever layout holds it: a buggy or hostile writer's work, done below the CommitLog.
 */
export async function rewriteEntry(root: string, seq: number, change: (e: LogEntry) => LogEntry | undefined): Promise<void> {
  const store = new DirectoryStore(root);
  if ((await layoutOf(root)) === 'objects') {
    const key = logObjectKey(kvSeq(seq));
    const next = change(decodeEntry(key, (await store.get(key))!));
    if (next === undefined) await store.delete([key]);
    else await store.replace(key, encodeEntry(next));
    return;
  }
  const s = span(root, seq);
  const file = fs.readFileSync(s.file);
  const format = formatOf(file);
  const record = file.subarray(s.offset, s.offset + s.length);
  const next = change(decodeEntry('segment record', recordBody(format, record, seq) as Buffer));
  splice(s, next === undefined ? new Uint8Array(0) : encodeRecord(next, decodeHead(format, record, 0)!.writtenAt));
}

/** Flips one bit of entry `seq`'s stored bytes, `fromEnd` bytes before their end (inside its payload). */
export async function flipInEntry(root: string, seq: number, fromEnd: number): Promise<void> {
  if ((await layoutOf(root)) === 'objects') {
    const file = path.join(root, logObjectKey(kvSeq(seq)));
    const b = fs.readFileSync(file);
    b[b.length - fromEnd]! ^= 0x20;
    fs.writeFileSync(file, b);
    return;
  }
  const s = span(root, seq);
  const b = fs.readFileSync(s.file);
  b[s.offset + s.length - fromEnd]! ^= 0x20;
  fs.writeFileSync(s.file, b);
}
