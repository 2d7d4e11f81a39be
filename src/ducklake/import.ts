// A DuckLake catalog (its SQLite file) read into a new Strata catalog, snapshot by snapshot: each of the lake's
// snapshots becomes one commit with the lake's snapshot id, time, ids, author and message, so a reader at any
// snapshot answers as DuckLake's tables say. Every row goes through the checks the API makes (lake.ts reads
// each value strictly, src/txn/imported.ts applies each snapshot through the transaction's own checks), and
// the whole catalog is built aside and moved into place only when it is complete and verified (staging.ts):
// a lake that fails anywhere leaves nothing — no catalog, no directory, no object in the store. The catalog is
// built on the commit layer (a CommitEngine, with a DataPlane for the views and files its transactions read),
// never through the facade, which calls this.
import type { ColumnId } from '../../keys/ids.js';
import { CommitEngine } from '../commit/commit-engine.js';
import type { EngineOptions } from '../commit/open.js';
import { StrataError } from '../errors.js';
import { DataPlane } from '../sql/data-plane.js';
import type { SqlSettings } from '../sql/settings.js';
import type { ObjectStore } from '../store/object-store.js';
import type { CommitMeta } from '../txn/plan.js';
import type { TransactionFn } from '../txn/prepared.js';
import { type Contents, checkContents } from './contents.js';
import { mappingOf } from './mappings.js';
import type { FileColumn } from '../sql/file-columns.js';
import { checkReadable, type FileFacts, type Planned, plannedSnapshots } from './deltas.js';
import { type NamedFile, type Placement, placeFiles, type RelativePath, relativePaths } from './files.js';
import { inlinedFiles } from './inlined.js';
import { badLake, type Lake, readLake } from './lake.js';
import { Stage } from './staging.js';
import { DUCKLAKE_VERSION } from './tables.js';

export interface ImportReport {
  snapshots: number;
  head: number;
  dataFiles: number;
  deleteFiles: number;
  tags: number;
  copiedFiles: number;
  copiedBytes: number;
  /** Data files written from the lake's inlined rows. */
  inlinedFiles: number;
  /** Snapshots the lake had expired, rebuilt from the rows that name them and excised again. */
  excised: number;
}

const RESERVED_KEYS = new Set(['version', 'created_by', 'data_path', 'encrypted']);

/** What the lake must be to be imported at all: DuckLake 1.0, plain, starting as DuckLake starts. */
function checkLake(lake: Lake): string {
  const version = lake.metadata.get('version');
  if (version !== DUCKLAKE_VERSION) throw badLake(lake.file, `its ducklake_metadata version is ${JSON.stringify(version ?? null)}; this import reads DuckLake ${DUCKLAKE_VERSION} (open it with DuckLake ${DUCKLAKE_VERSION} first, which migrates it)`);
  if (lake.metadata.get('encrypted') === 'true') throw badLake(lake.file, 'its data files are encrypted');
  const dataPath = lake.metadata.get('data_path');
  if (dataPath === undefined || dataPath === '') throw badLake(lake.file, 'ducklake_metadata has no data_path');
  if (lake.snapshots.length === 0) throw badLake(lake.file, 'ducklake_snapshot is empty');
  const atZero = lake.schemas.filter((s) => s.begin === 0);
  if (atZero.length !== 1 || atZero[0]!.id !== 0 || atZero[0]!.name !== 'main' || lake.tables.some((t) => t.begin === 0) || lake.views.some((v) => v.begin === 0)) {
    throw badLake(lake.file, 'snapshot 0 must hold schema "main" (id 0) alone, as DuckLake creates it');
  }
  try {
    checkReadable(lake);
  } catch (e) {
    throw e instanceof StrataError ? badLake(lake.file, e.message, e) : e;
  }
  return dataPath.endsWith('/') ? dataPath : `${dataPath}/`;
}

/** Runs `fn`, naming what it was doing in a refusal; anything but a StrataError is not the lake's and goes as it is. */
async function doing<T>(file: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof StrataError)) throw e;
    if (e.message.includes(file)) throw e;
    const next = e.code === 'INVALID_ARGUMENT' ? ' — correct the lake and import it again' : '';
    throw new StrataError(e.code, `${file}: ${what}: ${e.message.replace(/; nothing was imported$/, '')}; nothing was imported${next}`, { cause: e });
  }
}

/**
 * Creates a catalog at `open` (which must hold none) from the DuckLake catalog in `file`: all of it, checked
 * and verified, or nothing at all. With `copyFiles`, every file the lake names is copied from its (local)
 * data path into the new catalog's store.
 */
export async function importLake(file: string, open: EngineOptions, how: { copyFiles: boolean; sql: SqlSettings }): Promise<ImportReport> {
  if (open.readOnly === true || open.create === false) throw new StrataError('INVALID_ARGUMENT', 'an import creates a catalog: it cannot be readOnly or create: false');
  if (typeof open.dir !== 'string' || open.dir === '') throw new StrataError('INVALID_ARGUMENT', "importDuckLake needs { dir }: the local directory for the new catalog's index");
  const lake = readLake(file);
  const dataPath = checkLake(lake);
  const stage = await Stage.create(open);
  const placement: Placement = { created: [], copiedFiles: 0, copiedBytes: 0 };
  let engine: CommitEngine | undefined;
  let plane: DataPlane | undefined;
  try {
    const first = [...lake.snapshots].sort((a, b) => a.id - b.id)[0]!;
    const clock = { now: first.time };
    engine = await CommitEngine.open({ ...stage.stagingOptions(open), clock: () => clock.now });
    plane = new DataPlane(engine, how.sql);
    const key = engine.dataPath;
    const rel = relativePaths(lake, dataPath, stage.store.maxKeyBytes - Buffer.byteLength(key));
    const columns = await doing(file, 'its files', () => placeLakeFiles(lake, rel, stage.store, key, how.copyFiles ? dataPath : undefined, placement));
    // The import's own files (from inlined rows) take ids above every id the lake holds or will hand out.
    let nextFileId = [...lake.snapshots.map((s) => s.nextFileId), ...lake.dataFiles.map((f) => f.id + 1), ...lake.deleteFiles.map((d) => d.id + 1)].reduce((m, x) => Math.max(m, x), 0);
    const inlined = await doing(file, 'its inlined rows', () => inlinedFiles(lake, { store: stage.store, dataPath: key, nextFileId: () => nextFileId++, created: placement.created }, rel));
    const planned = await doing(file, 'its snapshots', async () => plannedSnapshots(inlined.lake, factsOf(lake, rel, columns), inlined.extra));
    await stage.store.delete(unnamedCopies(lake, inlined.lake, rel, key, placement));
    const report = await replay(file, engine, plane, lake, planned, clock);
    report.inlinedFiles = inlined.extra.reduce((n, x) => n + x.dataFiles.filter((f) => f.next !== null).length, 0);
    const verified = await engine.verify(false, plane);
    if (!verified.ok) throw badLake(file, `the catalog built from it does not verify: ${verified.violations[0]!.message} (${verified.violations.length} violation(s))`);
    await engine.checkpoint();
    await engine.close(plane);
    engine = undefined;
    await stage.publish();
    return { ...report, copiedFiles: placement.copiedFiles, copiedBytes: placement.copiedBytes };
  } catch (e) {
    await engine?.close(plane).catch(() => undefined);
    await stage.discard(placement.created);
    throw e;
  }
}

/**
 * Every file the lake names, placed in the store (or found there) and read against what its row records; the
 * columns of those a name mapping reads.
 */
async function placeLakeFiles(lake: Lake, rel: RelativePath, store: ObjectStore, key: string, copyFrom: string | undefined, placement: Placement): Promise<Map<string, FileColumn[]>> {
  const named: NamedFile[] = [
    ...lake.dataFiles.map((f) => ({ rel: rel(f, `data file ${f.id}`), fileSizeBytes: f.fileSizeBytes, contentCrc32: lake.crcs.get(f.id) ?? null, parquet: true, row: `data file ${f.id}` })),
    ...lake.deleteFiles.map((d) => ({ rel: rel(d, `delete file ${d.id}`), fileSizeBytes: d.fileSizeBytes, contentCrc32: lake.crcs.get(d.id) ?? null, parquet: true, row: `delete file ${d.id}` })),
  ];
  await placeFiles(named, store, key, copyFrom, placement);
  const records = new Map(lake.dataFiles.map((f) => [f.id, f.recordCount]));
  return checkContents(
    [
      ...lake.dataFiles.map((f): Contents => ({ rel: rel(f, `data file ${f.id}`), row: `data file ${f.id}`, kind: 'data', recordCount: f.recordCount, mapped: f.mappingId !== null })),
      ...lake.deleteFiles.map((d): Contents => ({ rel: rel(d, `delete file ${d.id}`), row: `delete file ${d.id}`, kind: 'delete', deleteCount: d.deleteCount, dataRecords: records.get(d.dataFileId) })),
    ],
    store,
    key,
  );
}

/**
 * The objects this import copied for delete files whose deletes it folded into its own (inlined-deletes.ts)
 * and that no row it keeps names: nothing would ever read them.
 */
function unnamedCopies(lake: Lake, folded: Lake, rel: RelativePath, key: string, placement: Placement): string[] {
  const keyOf = (f: Lake['dataFiles'][number] | Lake['deleteFiles'][number]) => `${key}${rel(f, `file ${f.id}`)}`;
  const kept = new Set(folded.deleteFiles.map((d) => d.id));
  const named = new Set([...folded.dataFiles, ...folded.deleteFiles].map(keyOf));
  const created = new Set(placement.created);
  return lake.deleteFiles.filter((d) => !kept.has(d.id)).map(keyOf).filter((k) => created.has(k) && !named.has(k));
}

/** What a file row becomes: its path under the data path, its CRC-32, its column statistics. */
function factsOf(lake: Lake, rel: RelativePath, columns: ReadonlyMap<string, FileColumn[]>): FileFacts {
  const stats = new Map<number, ReturnType<FileFacts['stats']>>();
  for (const { dataFileId, ...s } of lake.fileStats) (stats.get(dataFileId) ?? stats.set(dataFileId, []).get(dataFileId)!).push({ ...s, columnId: s.columnId as ColumnId });
  const mapping = (f: Lake['dataFiles'][number]) => {
    const at = rel(f, `data file ${f.id}`);
    return mappingOf(lake, f, at, columns.get(at));
  };
  return { rel, crc: (id) => lake.crcs.get(id) ?? null, stats: (id) => stats.get(id) ?? [], mapping };
}

/**
 * The lake's options, its snapshots one commit each (the clock saying each one's time), its tags and its
 * retain-from (excising the rebuilt snapshots below it), committed on the catalog being built.
 */
async function replay(file: string, engine: CommitEngine, plane: DataPlane, lake: Lake, planned: readonly Planned[], clock: { now: number }): Promise<ImportReport> {
  const commit = (fn: TransactionFn, meta?: CommitMeta) => engine.transaction(fn, meta, plane);
  const settings = [...lake.metadata].filter(([k]) => !RESERVED_KEYS.has(k));
  if (settings.length > 0) await doing(file, 'ducklake_metadata', () => commit(async (tx) => { for (const [k, v] of settings) await tx.setOption(k, v); }));
  const report: ImportReport = { snapshots: lake.snapshots.length, head: planned.at(-1)?.id ?? 0, dataFiles: 0, deleteFiles: 0, tags: 0, copiedFiles: 0, copiedBytes: 0, inlinedFiles: 0, excised: 0 };
  for (const p of planned) {
    if (p.lake !== undefined) clock.now = p.lake.time;
    report.dataFiles += p.delta.dataFiles.filter((f) => f.next !== null).length;
    report.deleteFiles += p.delta.deleteFiles.filter((f) => f.next !== null).length;
    const { snapshot } = await doing(file, `snapshot ${p.id}`, () => commit((tx) => tx.importSnapshot(p.delta), metaOf(p.lake)));
    if (snapshot !== p.id) throw new StrataError('CONFLICT', `snapshot ${p.id} of the lake was committed as ${snapshot}: another writer wrote to the catalog during the import`);
  }
  for (const t of lake.tags) {
    clock.now = t.createdAt;
    await doing(file, `tag ${JSON.stringify(t.name)} (strata_snapshot_tag)`, () => engine.tags.create(t.name, t.snapshot));
    report.tags++;
  }
  // Strata's own retain-from when the lake has one; else the lake's first snapshot: nothing it kept.
  const retainFrom = lake.retainFrom ?? lake.snapshots.reduce((m, s) => Math.min(m, s.id), Number.MAX_SAFE_INTEGER);
  if (retainFrom > 0) {
    await doing(file, `retain-from ${retainFrom} (strata_retention)`, () => engine.gc.advanceRetainFrom({ snapshot: retainFrom }, undefined));
    report.excised = (await engine.gc.excise(undefined)).snapshots;
  }
  return report;
}

/** A lake snapshot's commit record; a rebuilt one says so. */
function metaOf(s: Lake['snapshots'][number] | undefined): CommitMeta {
  if (s === undefined) return { message: 'expired from the lake: rebuilt by the import from the rows that name it' };
  return {
    ...(s.author === null ? {} : { author: s.author }),
    ...(s.message === null ? {} : { message: s.message }),
    ...(s.extraInfo === null ? {} : { extraInfo: s.extraInfo }),
    maintenance: s.maintenance ?? s.changesMade.includes('compacted_table:'),
    ...(s.readSources === undefined ? {} : { readSources: s.readSources as NonNullable<CommitMeta['readSources']> }),
  };
}
