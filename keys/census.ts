// What verify learns of an index from one scan of its whole keyspace, in key order: each key goes to the
// family that owns its space, which keeps what its invariants need; `finish` runs them. Pure: the caller
// does the reading (src/commit/verify.ts). Memory holds one fact per entity version and per file row — a
// maintenance job's budget, not a reader's. The facts of the families with one per file are built field by
// field: a copy by spread of a decoded key, with the key's name added, took twice the memory (~460 bytes
// against ~240 a fact).
import { type BaseValue, baseProblems, type DataFileFact, type DataFileRow, dataFileEndProblems, decodeBase, decodeBasePart, decodeDataFileEnd, decodeEndedAt, decodeFileTable, decodeManifest, decodeManifestPart, decodePathIndex, fileTableProblems, type ManifestValue, manifestProblems, pathIndexProblems } from './data-files.js';
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

export class Census {
  private readonly violations: Violation[] = [];
  private run: { prefix: string; versions: { key: string; begin: number; end: number | null; recordOnly?: boolean }[] } | undefined;
  private readonly snapshotRows: { id: number; row: SnapshotRow; key: string }[] = [];
  private readonly changes = new Set<number>();
  // Stryker disable next-line ArrayDeclaration: a stray element that is no record has no id, time or begin, so no rule finds anything in it
  private readonly times: { time: number; id: number; key: string }[] = [];
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
  private readonly dataFiles: DataFileFact[] = [];
  private readonly deleteFiles: { id: number; tableId: number; row: DeleteFileRow; path: string; size: number; crc: number | null; key: string }[] = [];
  private readonly manifests: ManifestValue[] = [];
  private readonly bases: BaseValue[] = [];
  private readonly endedAt: { tableId: number; end: number; id: number; key: string }[] = [];
  private readonly fileTable: { id: number; begin: number; tableId: number; key: string }[] = [];
  private readonly fileEnds: { tableId: number; id: number; end: number; key: string }[] = [];
  private readonly paths: { path: string; ids: number[]; key: string }[] = [];
  private readonly ended: EndedFact[] = [];
  private readonly endEntries: { end: number; keyHex: string; path: string | undefined; key: string }[] = [];
  private readonly stats: { tableId: number; row: TableStatsRow; key: string }[] = [];
  private readonly fileStats: { tableId: number; fileId: number; begin: number; key: string }[] = [];
  private readonly mappings: { tableId: number; fileId: number; begin: number; mappingId: number; key: string }[] = [];
  private readonly tags: { name: string; snapshot: number; key: string }[] = [];
  private maxCatalogId = -1;
  private maxFileId = -1;

  /** One key and its value, in key order. A value that cannot be decoded is a violation, and the scan goes on. */
  visit(key: Key, value: Uint8Array): void {
    try {
      this.take(key, value);
    } catch (e) {
      this.violations.push({ invariant: 'values-decode', key: keyToString(key), message: (e as Error).message });
    }
  }

  private take(key: Key, value: Uint8Array): void {
    if (isIndexBookkeeping(key)) return;
    const space = key[0] as Space;
    const name = keyToString(key);
    if (space === Space.EndIndex) {
      const { end, key: ended } = decodeEndIndexKey(key);
      this.endEntries.push({ end, keyHex: hex(ended), path: isFile(ended[0]) ? decodeFilePathNote(key, value) : undefined, key: name });
      return;
    }
    const { fields, begin } = decodeKey(key);
    if (hasEnd(space)) {
      this.version(space, key, fields, begin!, decodeValue<Versioned & Record<string, unknown>>(key, value), name);
      return;
    }
    switch (space) {
      case Space.Snapshot:
        this.snapshotRows.push({ id: begin!, row: decodeValue<SnapshotRow>(key, value), key: name });
        break;
      case Space.SnapshotChanges:
        decodeValue(key, value);
        this.changes.add(begin!);
        break;
      case Space.SnapshotTimeIndex:
        decodeValue(key, value);
        {
          const { time, id } = decodeTimeKey(key);
          this.times.push({ time, id, key: name });
        }
        break;
      case Space.DataFileManifest:
        this.manifests.push({ tableId: fields[0] as number, begin: begin!, ...decodeManifest(key, value), key: name });
        this.reference(begin!, name);
        break;
      case Space.DataFileManifestPart:
        // Stryker disable next-line BooleanLiteral: manifestProblems tells a part by its `part` being there at all
        this.manifests.push({ tableId: fields[0] as number, begin: fields[1] as number, files: decodeManifestPart(key, value), part: true, key: name });
        this.reference(fields[1] as number, name);
        break;
      case Space.DataFileBase:
        {
          const { tableId, at, files, more } = decodeBase(key, value);
          this.bases.push({ tableId, at, files, more, key: name });
        }
        break;
      case Space.DataFileBasePart:
        this.bases.push({ tableId: fields[0] as number, at: fields[1] as number, files: decodeBasePart(key, value), part: true, key: name });
        break;
      case Space.DataFileEndedAt:
        decodeValue(key, value);
        {
          const { tableId, end, id } = decodeEndedAt(key);
          this.endedAt.push({ tableId, end, id, key: name });
        }
        break;
      case Space.FileTableIndex:
        this.fileTable.push({ id: fields[0] as number, begin: begin!, tableId: decodeFileTable(key, value), key: name });
        break;
      case Space.DataFileEndIndex:
        {
          const { tableId, id, end } = decodeDataFileEnd(key, value);
          this.fileEnds.push({ tableId, id, end, key: name });
        }
        break;
      case Space.FilePathIndex:
        this.paths.push({ path: fields[0] as string, ids: decodePathIndex(key, value), key: name });
        break;
      case Space.FileColumnStats:
        decodeFileColumnStats(key, value);
        this.fileStats.push({ tableId: fields[0] as number, fileId: fields[1] as number, begin: begin!, key: name });
        break;
      case Space.NameMapping:
        {
          const { mappingId } = decodeNameMapping(key, value);
          this.mappings.push({ tableId: fields[0] as number, fileId: fields[1] as number, begin: begin!, mappingId, key: name });
          // Mapping ids are catalog ids (DuckLake takes them from next_catalog_id).
          this.maxCatalogId = Math.max(this.maxCatalogId, mappingId);
        }
        break;
      case Space.TableStats:
        this.stats.push({ tableId: fields[0] as number, row: decodeValue<TableStatsRow>(key, value), key: name });
        break;
      case Space.ColumnIdFloor:
        this.columnIdFloors.push({ tableId: fields[0] as number, row: decodeValue<ColumnIdFloorRow>(key, value), key: name });
        break;
      case Space.SnapshotTag:
        this.tags.push({ ...decodeTag(key, value), key: name });
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

  private version(space: Space, key: Key, fields: readonly (number | string)[], begin: number, row: Versioned & Record<string, unknown>, name: string): void {
    const prefix = hex(key.subarray(0, key.length - 8));
    if (this.run?.prefix !== prefix) this.endRun({ prefix, versions: [] });
    // A delete file that deleted every row of its data file ended it, and itself, in the commit that made
    // it: visible at no snapshot, kept so that reclamation knows the object is the catalog's.
    this.run!.versions.push({ key: name, begin, end: row.end, recordOnly: space === Space.DeleteFile });
    this.reference(begin, name);
    if (row.end !== null) {
      this.reference(row.end, name);
      const path = isFile(space) ? (row as unknown as { path: string }).path : undefined;
      this.ended.push({ keyHex: hex(key), key: name, end: row.end, path });
    }
    const v = { begin, end: row.end, key: name };
    switch (space) {
      case Space.Schema:
        this.schemas.push({ ...v, id: fields[0] as number, parent: 0, name: (row as unknown as SchemaRow).name });
        this.maxCatalogId = Math.max(this.maxCatalogId, fields[0] as number);
        break;
      case Space.Table:
      case Space.View: {
        const r = row as unknown as TableRow | ViewRow;
        this.relations.push({ ...v, id: fields[0] as number, parent: r.schemaId, name: r.name });
        if (space === Space.Table) this.tablesWithVersions.add(fields[0] as number);
        if (space === Space.Table && row.end === null) this.liveTables.add(fields[0] as number);
        this.maxCatalogId = Math.max(this.maxCatalogId, fields[0] as number);
        break;
      }
      case Space.SchemaNameIndex:
        this.schemaNames.push({ ...v, parent: 0, name: fields[0] as string, id: (row as unknown as SchemaNameIndexRow).schemaId });
        break;
      case Space.RelationNameIndex:
        this.relationNames.push({ ...v, parent: fields[0] as number, name: fields[1] as string, id: (row as unknown as RelationNameIndexRow).id });
        break;
      case Space.DataFile:
        this.dataFiles.push({ tableId: fields[0] as number, id: fields[1] as number, begin, end: row.end, row: row as unknown as DataFileRow, key: name });
        this.maxFileId = Math.max(this.maxFileId, fields[1] as number);
        break;
      case Space.DeleteFile:
        {
          const d = row as unknown as DeleteFileRow;
          this.deleteFiles.push({ id: fields[1] as number, tableId: fields[0] as number, row: d, path: d.path, size: d.fileSizeBytes, crc: d.contentCrc32 ?? null, key: name });
        }
        this.maxFileId = Math.max(this.maxFileId, fields[1] as number);
        break;
      default:
    }
  }

  private reference(id: number, key: string): void {
    if (!this.referenced.has(id)) this.referenced.set(id, key);
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
    const existing = new Set(this.snapshotRows.map((r) => r.id));
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
    rule('snapshot', () => snapshotProblems({ rows: this.snapshotRows, changes: this.changes, times: this.times, head: this.head }));
    rule('referenced snapshot', () => referencedSnapshotProblems(this.referenced, existing, this.retainFrom));
    rule('tag', () => tagProblems(this.tags, existing));
    rule('counter', () => counterProblems(this.snapshotRows.find((r) => r.id === this.head)?.row, this.maxCatalogId, this.maxFileId));
    rule('schema name index', () => nameIndexProblems('schema', this.schemas, this.schemaNames));
    rule('relation name index', () => nameIndexProblems('table or view', this.relations, this.relationNames));
    rule('manifest', () => manifestProblems(this.dataFiles, this.manifests));
    rule('file table', () => fileTableProblems(this.dataFiles, this.fileTable));
    rule('data file end', () => dataFileEndProblems(this.dataFiles, this.fileEnds));
    rule('base', () => baseProblems(this.dataFiles, this.bases, this.endedAt));
    rule('path index', () => pathIndexProblems([...this.dataFiles.map((f) => ({ id: f.id, path: f.row.path, key: f.key })), ...this.deleteFiles], this.paths));
    // Stryker disable next-line StringLiteral: this rule reads only key fields, which decoded, so it cannot throw
    rule('file column stats', () => fileColumnStatsProblems(this.fileStats, this.dataFiles));
    rule('name mapping', () => nameMappingProblems(this.mappings, this.dataFiles));
    rule('end index', () => endIndexProblems(this.ended, this.endEntries));
    rule('table stats', () =>
      tableStatsProblems(
        this.stats,
        this.dataFiles.map((f) => ({ ...f, recordCount: f.row.recordCount, fileSizeBytes: f.row.fileSizeBytes, rowIdEnd: f.row.rowIdStart + f.row.recordCount })),
        this.deleteFiles.map((d) => ({ tableId: d.tableId, end: d.row.end, deleteCount: d.row.deleteCount, fileSizeBytes: d.row.fileSizeBytes })),
        this.liveTables,
      ),
    );
    rule('column id floor', () => columnIdFloorProblems(this.columnIdFloors, this.tablesWithVersions));
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
    for (const f of this.dataFiles) add(f.row.path, f.row.fileSizeBytes, f.row.contentCrc32 ?? null);
    for (const f of this.deleteFiles) add(f.path, f.size, f.crc);
    return new Map([...out].map(([p, records]) => [p, [...records.values()]]));
  }

  /** Every delete file row with the record count of the data file it deletes from: what its positions must fit. */
  deleteFilesOfData(): NamedDeleteFile[] {
    const records = new Map(this.dataFiles.map((f) => [`${f.tableId}/${f.id}`, f.row.recordCount]));
    return this.deleteFiles.flatMap((d) => {
      const recordCount = records.get(`${d.tableId}/${d.row.dataFileId}`);
      return recordCount === undefined ? [] : [{ path: d.path, fileSizeBytes: d.size, contentCrc32: d.crc, deleteCount: d.row.deleteCount, dataFileId: d.row.dataFileId, recordCount }];
    });
  }
}

