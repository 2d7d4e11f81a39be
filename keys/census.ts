// What verify learns of an index from one scan of its whole keyspace, in key order: each key goes to the
// family that owns its space, which keeps what its invariants need; `finish` runs them. Pure: the caller
// does the reading (src/commit/verify.ts). A census may take one slice of the facts (`CensusSlice`): the
// rules that join families keep only the facts whose join key falls in the slice, so a catalog of any size is
// checked in as many scans as it needs slices, each holding a slice's facts (~265 bytes a key). Every rule's
// two sides are sliced by the same key, so the slices together find what one whole census finds; the rules
// over the catalog's entities and snapshots (one fact per version or snapshot, not per file) run in slice 0.
// The facts of the families with one per file are built field by field: a copy by spread of a decoded key,
// with the key's name added, took twice the memory (~460 bytes against ~240 a fact).
import { type BaseValue, baseProblems, type DataFileFact, type DataFileRow, dataFileEndProblems, decodeBase, decodeBasePart, decodeDataFileEnd, decodeEndedAt, decodeFileTable, decodeIdRange, decodeManifest, decodeManifestPart, decodePathIndex, fileTableProblems, type ManifestValue, manifestProblems, pathIndexProblems } from './data-files.js';
import type { DeleteFileRow } from './delete-files.js';
import { decodeFileColumnStats, fileColumnStatsProblems } from './file-column-stats.js';
import { decodeEndIndexKey, decodeFilePathNote, type EndedFact, endIndexProblems } from './end-index.js';
import { decodeKey, type Key, keyToString } from './key-codec.js';
import { type NamedVersion, type NameEntry, nameIndexProblems } from './name-index.js';
import { decodeNameMapping, nameMappingProblems } from './name-mappings.js';
import type { RelationNameIndexRow, TableRow, ViewRow } from './relations.js';
import { decodeTag, RETAIN_FROM_KEY, type RetainFromRow, tagProblems } from './retention.js';
import type { SchemaNameIndexRow, SchemaRow } from './schemas.js';
import { counterProblems, decodeTimeKey, referencedSnapshotProblems, type SnapshotRow, snapshotProblems } from './snapshots.js';
import { Space, spaceSpec } from './spaces.js';
import { type TableStatsRow, tableStatsProblems } from './stats.js';
import { type ColumnIdFloorRow, columnIdFloorProblems } from './columns.js';
import { HEAD_SNAPSHOT_KEY, type HeadSnapshotRow, isIndexBookkeeping } from './system.js';
import { append } from './mutation.js';
import { decodeValue } from './value-codec.js';
import { type Versioned, versionRunProblems } from './versions.js';
import type { Violation } from './violation.js';

const hex = (k: Key) => Buffer.from(k).toString('hex');
const same = (a: Key, b: Key) => Buffer.compare(a, b) === 0;

/** A delete file a retained row names, with the record count of its data file. */
export interface NamedDeleteFile {
  path: string;
  fileSizeBytes: number;
  contentCrc32: number | null;
  deleteCount: number;
  dataFileId: number;
  recordCount: number;
}

/** What a rule that could not read the index reports: a value decoded to a record of the wrong shape. */
const wrongShape = (rule: string, e: unknown): Violation => ({
  invariant: 'values-decode',
  message: `the ${rule} rule could not read what the index holds (${(e as Error).message}): a value has the wrong shape; rebuild the index from the store`,
});

/** Data and delete files: rows that name an object path, which their end-index entries record too. */
const isFile = (space: number | undefined) => space === Space.DataFile || space === Space.DeleteFile;

/** Spaces whose rows carry an end: their versions of one entity must not overlap. */
const hasEnd = (space: Space) => spaceSpec(space).category === 'versioned' || isFile(space);

/** The spaces without ends whose facts the sliced rules read (every versioned row names snapshots, so all of those are read too). */
const SLICED: ReadonlySet<Space> = new Set([
  Space.EndIndex,
  Space.Snapshot,
  Space.DataFileManifest,
  Space.DataFileManifestPart,
  Space.DataFileBase,
  Space.DataFileBasePart,
  Space.DataFileEndedAt,
  Space.FileTableIndex,
  Space.FileIdRange,
  Space.DataFileEndIndex,
  Space.FilePathIndex,
  Space.FilePathRef,
  Space.FileColumnStats,
  Space.NameMapping,
  Space.TableStats,
  Space.SnapshotTag,
  Space.System,
]);

/** Which part of the joined facts a census keeps: those whose join key is `slice` modulo `of`. */
export interface CensusSlice {
  slice: number;
  of: number;
}

export const WHOLE_CENSUS: CensusSlice = { slice: 0, of: 1 };

/**
 * A path's slice: FNV-1a over its UTF-16 code units (paths join the path index to the rows that name them). A
 * row's path of the wrong shape is slice 0's.
 */
function pathHash(path: unknown): unknown {
  if (typeof path !== 'string') return undefined;
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * What the slices of one census found, as one report: each slice's in turn. A violation of the whole catalog,
 * named by no key (a rule that cannot read retain-from, met by every slice that holds a snapshot named), is
 * reported once.
 */
export function mergeSlices(slices: readonly Violation[][]): Violation[] {
  const seen = new Set<string>();
  return slices.flat().filter((v) => {
    if (v.key !== undefined || v.object !== undefined) return true;
    const id = `${v.invariant}\0${v.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

export class Census {
  private readonly violations: Violation[] = [];
  private run: { prefix: string; versions: { key: string; begin: number; end: number | null; recordOnly?: boolean }[] } | undefined;
  private readonly snapshotRows: ({ id: number; time: number } & Pick<SnapshotRow, 'nextCatalogId' | 'nextFileId'>)[] = [];
  /** The snapshots that have a record, of this slice (joined by id to the snapshots rows and tags name). */
  private readonly existing = new Set<number>();
  private readonly changes = new Set<number>();
  // Stryker disable next-line ArrayDeclaration: a stray element that is no record has no id, time or begin, so no rule finds anything in it
  private readonly times: { time: number; id: number }[] = [];
  private head: number | undefined;
  private retainFrom = 0;
  private readonly referenced = new Map<number, string>();
  // Stryker disable next-line ArrayDeclaration: a stray element that is no record has no id, time or begin, so no rule finds anything in it
  private readonly schemas: NamedVersion[] = [];
  private readonly schemaNames: NameEntry[] = [];
  // Stryker disable next-line ArrayDeclaration: a stray element that is no record has no id, time or begin, so no rule finds anything in it
  private readonly relations: NamedVersion[] = [];
  private readonly relationNames: NameEntry[] = [];
  private readonly liveTables = new Set<number>();
  private readonly tablesWithVersions = new Set<number>();
  private readonly columnIdFloors: { tableId: number; row: ColumnIdFloorRow; key: string }[] = [];
  /** Data files of this slice's tables: what a table's manifests, bases and stats are checked against. */
  private readonly tableFiles: DataFileFact[] = [];
  /** Data files of this slice's file ids: what the indexes by file are checked against. */
  private readonly fileFacts: DataFileFact[] = [];
  /** Delete files of this slice's tables. */
  private readonly deleteFiles: { id: number; tableId: number; row: DeleteFileRow; key: string }[] = [];
  /** Data and delete file rows whose path is of this slice. */
  private readonly pathRows: { id: number; path: string; size: number; crc: number | null; key: string }[] = [];
  private readonly manifests: ManifestValue[] = [];
  private readonly bases: BaseValue[] = [];
  private readonly endedAt: { tableId: number; end: number; id: number; key: string }[] = [];
  private readonly fileTable: { id: number; begin: number; tableId: number; key: string }[] = [];
  /** Every id range: each spans ids of many slices (a slice checks its own ids in them). */
  private readonly idRanges: { first: number; lastId: number; tableId: number; begin: number; key: string }[] = [];
  private readonly fileEnds: { tableId: number; id: number; end: number; key: string }[] = [];
  private readonly paths: { path: string; ids: number[]; key: string }[] = [];
  private readonly pathRefs: { path: string; id: number; key: string }[] = [];
  private readonly ended: EndedFact[] = [];
  private readonly endEntries: { end: number; keyHex: string; path: string | undefined; key: string }[] = [];
  private readonly stats: { tableId: number; row: TableStatsRow; key: string }[] = [];
  private readonly fileStats: { tableId: number; fileId: number; begin: number; key: string }[] = [];
  private readonly mappings: { tableId: number; fileId: number; begin: number; mappingId: number; key: string }[] = [];
  private readonly tags: { name: string; snapshot: number; key: string }[] = [];
  private maxCatalogId = -1;
  private maxFileId = -1;
  /** Slice 0 also runs the rules over entities and snapshots, and reports each value that does not decode. */
  private readonly first: boolean;

  constructor(private readonly part: CensusSlice = WHOLE_CENSUS) {
    if (!Number.isSafeInteger(part.of) || part.of < 1 || !Number.isSafeInteger(part.slice) || part.slice < 0 || part.slice >= part.of) {
      throw new RangeError(`a census slice is 0 to of - 1, of at least 1: got ${part.slice} of ${part.of}`);
    }
    this.first = part.slice === 0;
  }

  /**
   * Whether a join key is this slice's. The rules join on keys made by template strings, so a damaged key that
   * reads as a number there ("3") is sliced as that number; any other of the wrong shape is slice 0's.
   */
  private mine(key: unknown): boolean {
    const n = typeof key === 'string' && /^-?\d+$/.test(key) ? Number(key) : key;
    return typeof n === 'number' && Number.isSafeInteger(n) ? ((n % this.part.of) + this.part.of) % this.part.of === this.part.slice : this.first;
  }

  /** One key and its value, in key order. A value that cannot be decoded is a violation, and the scan goes on. */
  visit(key: Key, value: Uint8Array): void {
    try {
      this.take(key, value);
    } catch (e) {
      // Slice 0 reports it; the others' facts lack it as slice 0's do.
      if (this.first) this.violations.push({ invariant: 'values-decode', key: keyToString(key), message: (e as Error).message });
    }
  }

  private take(key: Key, value: Uint8Array): void {
    if (isIndexBookkeeping(key)) return;
    const space = key[0] as Space;
    // Stryker disable next-line ConditionalExpression: a fact no rule of this slice reads is only memory
    if (!this.first && !hasEnd(space) && !SLICED.has(space)) return;
    // A key's name is made only for a fact kept: most keys a slice visits, it keeps nothing of.
    let named: string | undefined;
    const name = () => (named ??= keyToString(key));
    // Every slice decodes each value it looks at before it keeps anything of it, so a value that does not
    // decode is left out of every slice as a whole census leaves it out; slice 0 looks at every key, and reports it.
    if (space === Space.EndIndex) {
      const { end, key: ended } = decodeEndIndexKey(key);
      const path = isFile(ended[0]) ? decodeFilePathNote(key, value) : undefined;
      if (this.mine(end)) this.endEntries.push({ end, keyHex: hex(ended), path, key: name() });
      return;
    }
    const { fields, begin } = decodeKey(key);
    if (hasEnd(space)) {
      this.version(space, key, fields, begin!, decodeValue<Versioned & Record<string, unknown>>(key, value), name);
      return;
    }
    switch (space) {
      case Space.Snapshot: {
        const row = decodeValue<SnapshotRow>(key, value);
        if (this.mine(begin!)) this.existing.add(begin!);
        if (this.first) this.snapshotRows.push({ id: begin!, time: row.time, nextCatalogId: row.nextCatalogId, nextFileId: row.nextFileId });
        break;
      }
      case Space.SnapshotChanges:
        decodeValue(key, value);
        this.changes.add(begin!);
        break;
      case Space.SnapshotTimeIndex:
        decodeValue(key, value);
        {
          const { time, id } = decodeTimeKey(key);
          this.times.push({ time, id });
        }
        break;
      case Space.DataFileManifest: {
        const manifest = decodeManifest(key, value);
        if (this.mine(fields[0] as number)) this.manifests.push({ tableId: fields[0] as number, begin: begin!, ...manifest, key: name() });
        this.reference(begin!, name);
        break;
      }
      case Space.DataFileManifestPart: {
        const files = decodeManifestPart(key, value);
        // Stryker disable next-line BooleanLiteral: manifestProblems tells a part by its `part` being there at all
        if (this.mine(fields[0] as number)) this.manifests.push({ tableId: fields[0] as number, begin: fields[1] as number, files, part: true, key: name() });
        this.reference(fields[1] as number, name);
        break;
      }
      case Space.DataFileBase: {
        const { tableId, at, files, more } = decodeBase(key, value);
        if (this.mine(tableId)) this.bases.push({ tableId, at, files, more, key: name() });
        break;
      }
      case Space.DataFileBasePart: {
        const files = decodeBasePart(key, value);
        if (this.mine(fields[0] as number)) this.bases.push({ tableId: fields[0] as number, at: fields[1] as number, files, part: true, key: name() });
        break;
      }
      case Space.DataFileEndedAt: {
        decodeValue(key, value);
        const { tableId, end, id } = decodeEndedAt(key);
        if (this.mine(tableId)) this.endedAt.push({ tableId, end, id, key: name() });
        break;
      }
      case Space.FileTableIndex: {
        const tableId = decodeFileTable(key, value);
        if (this.mine(fields[0] as number)) this.fileTable.push({ id: fields[0] as number, begin: begin!, tableId, key: name() });
        break;
      }
      case Space.FileIdRange: {
        const { first, lastId, tableId, begin: at } = decodeIdRange(key, value);
        this.idRanges.push({ first, lastId, tableId, begin: at, key: name() });
        // A last id of the wrong shape is the file table rule's to report (an empty run), not the counters' NaN.
        if (Number.isSafeInteger(lastId)) this.maxFileId = Math.max(this.maxFileId, lastId);
        break;
      }
      case Space.DataFileEndIndex: {
        const { tableId, id, end } = decodeDataFileEnd(key, value);
        if (this.mine(id)) this.fileEnds.push({ tableId, id, end, key: name() });
        break;
      }
      case Space.FilePathIndex: {
        const ids = decodePathIndex(key, value);
        if (this.mine(pathHash(fields[0]))) this.paths.push({ path: fields[0] as string, ids, key: name() });
        break;
      }
      case Space.FilePathRef:
        decodeValue(key, value);
        if (this.mine(pathHash(fields[0]))) this.pathRefs.push({ path: fields[0] as string, id: fields[1] as number, key: name() });
        break;
      case Space.FileColumnStats:
        decodeFileColumnStats(key, value);
        if (this.mine(fields[1] as number)) this.fileStats.push({ tableId: fields[0] as number, fileId: fields[1] as number, begin: begin!, key: name() });
        break;
      case Space.NameMapping: {
        const { mappingId } = decodeNameMapping(key, value);
        if (this.mine(fields[1] as number)) this.mappings.push({ tableId: fields[0] as number, fileId: fields[1] as number, begin: begin!, mappingId, key: name() });
        // Mapping ids are catalog ids (DuckLake takes them from next_catalog_id).
        this.maxCatalogId = Math.max(this.maxCatalogId, mappingId);
        break;
      }
      case Space.TableStats: {
        const row = decodeValue<TableStatsRow>(key, value);
        if (this.mine(fields[0] as number)) this.stats.push({ tableId: fields[0] as number, row, key: name() });
        break;
      }
      case Space.ColumnIdFloor:
        this.columnIdFloors.push({ tableId: fields[0] as number, row: decodeValue<ColumnIdFloorRow>(key, value), key: name() });
        break;
      case Space.SnapshotTag:
        {
          const tag = decodeTag(key, value);
          if (this.mine(tag.snapshot)) this.tags.push({ ...tag, key: name() });
        }
        break;
      case Space.System:
        if (same(key, HEAD_SNAPSHOT_KEY)) this.head = decodeValue<HeadSnapshotRow>(key, value).id;
        else if (same(key, RETAIN_FROM_KEY)) this.retainFrom = decodeValue<RetainFromRow>(key, value).snapshot;
        else decodeValue(key, value);
        break;
      default:
        // Values no rule here reads are still read by someone (a reader, GC): one that does not decode is damage.
        decodeValue(key, value);
    }
  }

  private version(space: Space, key: Key, fields: readonly (number | string)[], begin: number, row: Versioned & Record<string, unknown>, name: () => string): void {
    if (this.first) {
      const prefix = hex(key.subarray(0, key.length - 8));
      if (this.run?.prefix !== prefix) this.endRun({ prefix, versions: [] });
      // A delete file that deleted every row of its data file ended it, and itself, in the commit that made
      // it: visible at no snapshot, kept so that reclamation knows the object is the catalog's.
      this.run!.versions.push({ key: name(), begin, end: row.end, recordOnly: space === Space.DeleteFile });
    }
    this.reference(begin, name);
    if (row.end !== null) {
      this.reference(row.end, name);
      const path = isFile(space) ? (row as unknown as { path: string }).path : undefined;
      if (this.mine(row.end)) this.ended.push({ keyHex: hex(key), key: name(), end: row.end, path });
    }
    if (!this.first && !isFile(space) && space !== Space.Table) return;
    const v = () => ({ begin, end: row.end, key: name() });
    switch (space) {
      case Space.Schema:
        this.schemas.push({ ...v(), id: fields[0] as number, parent: 0, name: (row as unknown as SchemaRow).name });
        this.maxCatalogId = Math.max(this.maxCatalogId, fields[0] as number);
        break;
      case Space.Table:
      case Space.View: {
        // Every slice's table stats ask which tables are live; the rest is slice 0's.
        if (space === Space.Table && row.end === null) this.liveTables.add(fields[0] as number);
        if (!this.first) break;
        const r = row as unknown as TableRow | ViewRow;
        this.relations.push({ ...v(), id: fields[0] as number, parent: r.schemaId, name: r.name });
        if (space === Space.Table) this.tablesWithVersions.add(fields[0] as number);
        this.maxCatalogId = Math.max(this.maxCatalogId, fields[0] as number);
        break;
      }
      case Space.SchemaNameIndex:
        this.schemaNames.push({ ...v(), parent: 0, name: fields[0] as string, id: (row as unknown as SchemaNameIndexRow).schemaId });
        break;
      case Space.RelationNameIndex:
        this.relationNames.push({ ...v(), parent: fields[0] as number, name: fields[1] as string, id: (row as unknown as RelationNameIndexRow).id });
        break;
      case Space.DataFile: {
        const [tableId, id] = fields as [number, number];
        const r = row as unknown as DataFileRow;
        if (this.mine(tableId) || this.mine(id)) {
          const f: DataFileFact = { tableId, id, begin, end: row.end, row: r, key: name() };
          if (this.mine(tableId)) this.tableFiles.push(f);
          if (this.mine(id)) this.fileFacts.push(f);
        }
        this.maxFileId = Math.max(this.maxFileId, id);
        if (this.mine(pathHash(r.path))) this.pathRows.push({ id, path: r.path, size: r.fileSizeBytes, crc: r.contentCrc32 ?? null, key: name() });
        break;
      }
      case Space.DeleteFile: {
        const [tableId, id] = fields as [number, number];
        const d = row as unknown as DeleteFileRow;
        if (this.mine(tableId)) this.deleteFiles.push({ id, tableId, row: d, key: name() });
        this.maxFileId = Math.max(this.maxFileId, id);
        if (this.mine(pathHash(d.path))) this.pathRows.push({ id, path: d.path, size: d.fileSizeBytes, crc: d.contentCrc32 ?? null, key: name() });
        break;
      }
      default:
    }
  }

  private reference(id: number, key: () => string): void {
    if (this.mine(id) && !this.referenced.has(id)) this.referenced.set(id, key());
  }

  private endRun(next: Census['run']): void {
    const run = this.run;
    this.run = next;
    if (run === undefined) return;
    // An end of the wrong shape (a record no number can be made of) breaks this run's check, not the scan.
    try {
      append(this.violations, versionRunProblems(run.versions));
    } catch (e) {
      this.violations.push({ ...wrongShape('version', e), key: run.versions[0]!.key });
    }
  }

  /** Every invariant over what was visited. */
  finish(): Violation[] {
    this.endRun(undefined);
    const existing = this.existing;
    const out: Violation[] = [...this.violations];
    // A value that decoded to a record of the wrong shape (damage that left valid MessagePack) breaks the
    // rule that reads it, not verify: that rule reports it and the others still run.
    const rule = (invariant: string, check: () => Violation[]) => {
      try {
        append(out, check());
      } catch (e) {
        out.push(wrongShape(invariant, e));
      }
    };
    // Slice 0 also runs the rules over entities and snapshots, each in the place a whole census runs it.
    const first = (invariant: string, check: () => Violation[]) => this.first && rule(invariant, check);
    first('snapshot', () => snapshotProblems({ rows: this.snapshotRows, changes: this.changes, times: this.times, head: this.head }));
    rule('referenced snapshot', () => referencedSnapshotProblems(this.referenced, existing, this.retainFrom));
    rule('tag', () => tagProblems(this.tags, existing));
    first('counter', () => counterProblems(this.snapshotRows.find((r) => r.id === this.head), this.maxCatalogId, this.maxFileId));
    first('schema name index', () => nameIndexProblems('schema', this.schemas, this.schemaNames));
    first('relation name index', () => nameIndexProblems('table or view', this.relations, this.relationNames));
    rule('manifest', () => manifestProblems(this.tableFiles, this.manifests));
    rule('file table', () => fileTableProblems(this.fileFacts, this.fileTable, this.idRanges, this.part));
    rule('data file end', () => dataFileEndProblems(this.fileFacts, this.fileEnds));
    rule('base', () => baseProblems(this.tableFiles, this.bases, this.endedAt));
    rule('path index', () => pathIndexProblems(this.pathRows, this.paths, this.pathRefs));
    // Stryker disable next-line StringLiteral: this rule reads only key fields, which decoded, so it cannot throw
    rule('file column stats', () => fileColumnStatsProblems(this.fileStats, this.fileFacts));
    rule('name mapping', () => nameMappingProblems(this.mappings, this.fileFacts));
    rule('end index', () => endIndexProblems(this.ended, this.endEntries));
    rule('table stats', () =>
      tableStatsProblems(
        this.stats,
        this.tableFiles.map((f) => ({ tableId: f.tableId, end: f.end, recordCount: f.row.recordCount, fileSizeBytes: f.row.fileSizeBytes, rowIdEnd: f.row.rowIdStart + f.row.recordCount })),
        this.deleteFiles.map((d) => ({ tableId: d.tableId, end: d.row.end, deleteCount: d.row.deleteCount, fileSizeBytes: d.row.fileSizeBytes })),
        this.liveTables,
      ),
    );
    first('column id floor', () => columnIdFloorProblems(this.columnIdFloors, this.tablesWithVersions));
    return out;
  }

  /**
   * The object paths the file rows name, each with the distinct sizes and CRC-32s its rows record (more than
   * one: some row is wrong): what `verify({ files })` checks in the store.
   */
  namedFiles(): Map<string, { fileSizeBytes: number; contentCrc32: number | null }[]> {
    const out = new Map<string, Map<string, { fileSizeBytes: number; contentCrc32: number | null }>>();
    const add = (p: string, fileSizeBytes: number, contentCrc32: number | null) => {
      let records = out.get(p);
      if (!records) out.set(p, (records = new Map()));
      records.set(`${fileSizeBytes}/${contentCrc32}`, { fileSizeBytes, contentCrc32 });
    };
    for (const r of this.pathRows) add(r.path, r.size, r.crc);
    return new Map([...out].map(([p, records]) => [p, [...records.values()]]));
  }

  /** Every delete file row with the record count of the data file it deletes from: what its positions must fit. */
  deleteFilesOfData(): NamedDeleteFile[] {
    const records = new Map(this.tableFiles.map((f) => [`${f.tableId}/${f.id}`, f.row.recordCount]));
    return this.deleteFiles.flatMap((d) => {
      const recordCount = records.get(`${d.tableId}/${d.row.dataFileId}`);
      return recordCount === undefined ? [] : [{ path: d.row.path, fileSizeBytes: d.row.fileSizeBytes, contentCrc32: d.row.contentCrc32 ?? null, deleteCount: d.row.deleteCount, dataFileId: d.row.dataFileId, recordCount }];
    });
  }
}

