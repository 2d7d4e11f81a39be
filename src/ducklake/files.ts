// Where the files an imported lake names end up: each one's path relative to the lake's data path (DuckLake
// resolves a file under its table's path, under its schema's, under the data path), and its object in the
// new catalog's store — checked there at its recorded size and CRC-32, or copied there (copyFiles) from the
// lake's own directory and nowhere else: no `..`, no absolute path outside it, no symbolic link out of it,
// only regular Parquet files of the size the lake records. Copies go through the store, whatever its kind,
// and the ones this import made are what a failed import deletes again.
import { lstat, open, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { isVisible } from '../../keys/visibility.js';
import { checkFilePath } from '../arguments.js';
import { StrataError } from '../errors.js';
import { bodyMismatch, bytesMismatch, type RecordedFile } from '../store/recorded-bytes.js';
import type { ObjectStore } from '../store/object-store.js';
import { inParallel } from '../in-parallel.js';
import type { Lake, LakeDataFile, LakeDeleteFile, LakePath } from './lake.js';

/** A file row's object: its path under the data path, with what the lake records of its bytes. */
export interface NamedFile {
  rel: string;
  fileSizeBytes: number;
  contentCrc32: number | null;
  parquet: boolean;
  /** Which row names it, for messages. */
  row: string;
}

const isUrl = (p: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(p);

/** A path as a directory prefix: ending in '/'. */
const asDir = (p: string) => (p.endsWith('/') ? p : `${p}/`);

/**
 * Each file row's path relative to the lake's data path, checked as addDataFile checks a path (no leading
 * '/', no scheme, no '.' or '..' segment, one the store can address): a file outside the data path is
 * refused, since Strata keeps its files under its own.
 */
export type RelativePath = (row: LakeDataFile | LakeDeleteFile, what: string) => string;

export function relativePaths(lake: Lake, dataPath: string, maxPathBytes: number): RelativePath {
  const byId = <T extends { id: number }>(rows: readonly T[]) => {
    const out = new Map<number, T[]>();
    for (const r of rows) (out.get(r.id) ?? out.set(r.id, []).get(r.id)!).push(r);
    return out;
  };
  const tables = byId(lake.tables);
  const schemas = byId(lake.schemas);
  const versionAt = <T extends { begin: number; end: number | null }>(versions: ReadonlyMap<number, T[]>, id: number, at: number) =>
    versions.get(id)?.find((r) => isVisible(r.begin, r.end, at));
  const under = (p: LakePath | null, base: string) => (p === null ? base : p.relative ? base + p.path : p.path);
  return (row, what) => {
    const table = versionAt(tables, row.tableId, row.begin);
    const schema = table && versionAt(schemas, table.schemaId, row.begin);
    const full = row.path.relative ? asDir(under(table?.path ?? null, asDir(under(schema?.path ?? null, dataPath)))) + row.path.path : row.path.path;
    if (!full.startsWith(dataPath)) {
      throw new StrataError('INVALID_ARGUMENT', `${what} is ${JSON.stringify(full)}, outside the lake's data path ${JSON.stringify(dataPath)}; Strata keeps the files of a catalog under its data path`);
    }
    return checkFilePath(`${what}'s path`, full.slice(dataPath.length), maxPathBytes);
  };
}

/** What one import did to the store: the objects it created, which a failed import deletes again. */
export interface Placement {
  created: string[];
  copiedFiles: number;
  copiedBytes: number;
}

/** The same object named by several rows (a restore names a file again under a new id) must be recorded alike. */
function byPath(files: readonly NamedFile[]): NamedFile[] {
  const out = new Map<string, NamedFile>();
  for (const f of files) {
    const seen = out.get(f.rel);
    if (seen === undefined) out.set(f.rel, f);
    else if (seen.fileSizeBytes !== f.fileSizeBytes || (seen.contentCrc32 !== null && f.contentCrc32 !== null && seen.contentCrc32 !== f.contentCrc32)) {
      throw new StrataError('INVALID_ARGUMENT', `${seen.row} and ${f.row} name one object, ${JSON.stringify(f.rel)}, but record different sizes or checksums of it`);
    } else if (seen.contentCrc32 === null && f.contentCrc32 !== null) out.set(f.rel, f);
  }
  return [...out.values()];
}

const PARQUET_MAGIC = Buffer.from('PAR1');

function notTheFile(f: NamedFile, where: string, problem: string): StrataError {
  return new StrataError('INVALID_ARGUMENT', `${f.row} names ${where}, which is not the file it records: ${problem}; nothing was imported`);
}

/**
 * Puts every file where the new catalog reads it: checks each is in `store` under `dataKey` at its recorded
 * size (and CRC-32, where the lake records one), or with `copyFrom` (the lake's local data path) copies it
 * there. Objects this created are in `placement.created` as they are made, for a failed import to delete.
 */
export async function placeFiles(
  files: readonly NamedFile[],
  store: ObjectStore,
  dataKey: string,
  copyFrom: string | undefined,
  placement: Placement,
): Promise<void> {
  const wanted = byPath(files);
  const source = copyFrom === undefined ? undefined : await lakeDirectory(copyFrom);
  const missing: NamedFile[] = [];
  await inParallel(wanted, 4, async (f) => {
    const key = `${dataKey}${f.rel}`;
    const record: RecordedFile = { key, fileSizeBytes: f.fileSizeBytes, contentCrc32: f.contentCrc32 };
    if (source !== undefined) {
      const bytes = await readConfined(source, f);
      if (await store.putIfAbsent(key, bytes)) {
        placement.created.push(key);
        placement.copiedFiles++;
        placement.copiedBytes += bytes.length;
        return;
      }
      // Already there (a lake whose data path is the store's, or an import run again): the same bytes or nothing.
      const there = await store.get(key);
      if (there === undefined || Buffer.compare(Buffer.from(there), bytes) !== 0) throw new StrataError('ALREADY_EXISTS', `${store.description} already holds another object at ${key}, where ${f.row} goes; nothing was imported — import into a new store`);
      return;
    }
    const info = await store.info(key);
    if (info === undefined) return void missing.push(f);
    const wrong = f.contentCrc32 === null ? bytesMismatch(record, info.size, null) : await storedMismatch(store, record);
    if (wrong !== undefined) throw notTheFile(f, store.url(key), wrong);
  });
  if (missing.length > 0) {
    throw new StrataError(
      'NOT_FOUND',
      `${missing.length} file(s) the lake names are not in ${store.description} under its data path, e.g. ${missing[0]!.rel} (${missing[0]!.row}); ` +
        "import with copyFiles (--copy-files) to copy them from the lake's data path, or into a store whose data path holds them; nothing was imported",
    );
  }
}

async function storedMismatch(store: ObjectStore, record: RecordedFile): Promise<string | undefined> {
  const body = await store.get(record.key);
  return body === undefined ? 'it is gone' : bodyMismatch(record, body);
}

/** The lake's data path on this machine, resolved (its symbolic links followed): what copies are confined to. */
async function lakeDirectory(dataPath: string): Promise<string> {
  if (isUrl(dataPath)) {
    throw new StrataError('INVALID_ARGUMENT', `copyFiles copies from the lake's data path on this machine, and the lake's is ${dataPath}; copy its files into the new catalog's store yourself and import without copyFiles`);
  }
  const real = await realpath(dataPath).catch((e: NodeJS.ErrnoException) => {
    throw new StrataError('NOT_FOUND', `the lake's data path ${dataPath} cannot be read here (${e.code}); nothing was imported`);
  });
  // A lake whose data path is the root would let its rows name any file of this machine.
  if (path.dirname(real) === real) throw new StrataError('INVALID_ARGUMENT', `the lake's data path is ${dataPath}, the root of the file system; copyFiles copies only from a lake's own directory`);
  return real;
}

/**
 * The bytes of `f` under the lake's directory `root`: its real path (links followed) inside the root, a
 * regular file of the recorded size and CRC-32, Parquet where it says so. Anything else is refused unread.
 */
async function readConfined(root: string, f: NamedFile): Promise<Buffer> {
  const named = path.join(root, f.rel);
  const real = await realpath(named).catch((e: NodeJS.ErrnoException) => {
    throw new StrataError('NOT_FOUND', `${f.row} names ${named}, which cannot be read (${e.code}); nothing was imported`);
  });
  if (!real.startsWith(root + path.sep)) throw notTheFile(f, named, `it leads to ${real}, outside the lake's data path ${root}`);
  const s = await lstat(real);
  if (!s.isFile()) throw notTheFile(f, named, 'it is not a regular file');
  if (s.size !== f.fileSizeBytes) throw notTheFile(f, named, `the lake records ${f.fileSizeBytes} bytes; the file has ${s.size}`);
  const handle = await open(real, 'r');
  let bytes: Buffer;
  try {
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  const wrong = bytesMismatch({ key: named, fileSizeBytes: f.fileSizeBytes, contentCrc32: f.contentCrc32 }, bytes.length, f.contentCrc32 === null ? null : crc32(bytes));
  if (wrong !== undefined) throw notTheFile(f, named, wrong);
  if (f.parquet && (bytes.length < 8 || !bytes.subarray(0, 4).equals(PARQUET_MAGIC) || !bytes.subarray(-4).equals(PARQUET_MAGIC))) {
    throw notTheFile(f, named, 'it is not a Parquet file (no PAR1 at its start and end)');
  }
  return bytes;
}
