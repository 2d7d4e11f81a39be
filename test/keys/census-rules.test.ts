// What verify's census (keys/census.ts) says of a keyspace, fed key by key as verify's scan feeds it: a small
// keyspace built with the families' own writers is clean, and each inconsistency or damaged row is reported
// under its rule, word for word. A value that decodes to a record of the wrong shape breaks only the rule that
// reads it: that rule says so (ARCHITECTURE.md, Invariants: "verify reports a value of the wrong shape instead
// of failing"), and the others still run.
import { describe, expect, it } from 'vitest';
import { Census, type CensusSlice, mergeSlices, WHOLE_CENSUS } from '../../keys/census.js';
import { columnIdFloorKey } from '../../keys/columns.js';
import { addedDataFiles, dataFileEntity, type DataFileRow, MANIFEST_PART_FILES, idRangeKey, manifestFile, pathRef } from '../../keys/data-files.js';
import { deleteFileEntity, type DeleteFileRow } from '../../keys/delete-files.js';
import { endIndexKey } from '../../keys/end-index.js';
import { catalogId, fileId, snapshotId } from '../../keys/ids.js';
import { encodeKey, type Key, keyToString } from '../../keys/key-codec.js';
import { fileColumnStatsKey } from '../../keys/file-column-stats.js';
import { del, type Mutation, putRow } from '../../keys/mutation.js';
import { putNameMapping } from '../../keys/name-mappings.js';
import { relationNameEntity, tableEntity, viewEntity } from '../../keys/relations.js';
import { putRetainFrom, putTag } from '../../keys/retention.js';
import { schemaEntity, schemaNameEntity } from '../../keys/schemas.js';
import { createSnapshot, snapshotChangesKey, snapshotKey, type SnapshotRow } from '../../keys/snapshots.js';
import { Space } from '../../keys/spaces.js';
import { putTableStats, type TableStatsRow } from '../../keys/stats.js';
import { putHeadSnapshot } from '../../keys/system.js';
import type { Violation } from '../../keys/violation.js';

/** A record no number or string can be made of: comparing or printing it throws (valid MessagePack, wrong shape). */
const UNPRINTABLE = { valueOf: 1, toString: 1 };

type FileSpec = { id: number; path?: string; recordCount?: number; fileSizeBytes?: number; rowIdStart?: number; contentCrc32?: number; mappingId?: unknown };

/** A keyspace built with the families' writers, visited in key order. */
class Keyspace {
  private readonly values = new Map<string, [Key, Uint8Array]>();
  private readonly paths = new Map<string, number[]>();

  put(...ms: Mutation[]): this {
    for (const m of ms) {
      const id = Buffer.from(m.key).toString('hex');
      if (m.type === 'put') this.values.set(id, [m.key, m.value]);
      else this.values.delete(id);
    }
    return this;
  }

  /** Bytes written as a value, as they are. */
  bytes(key: Key, value: Uint8Array): this {
    this.values.set(Buffer.from(key).toString('hex'), [key, value]);
    return this;
  }

  /** A value written as is, whatever its shape. */
  raw(key: Key, value: unknown): this {
    return this.put(putRow(key, value));
  }

  snapshot(id: number, over: Partial<Record<keyof SnapshotRow, unknown>> = {}): this {
    const row = { time: id * 10, schemaVersion: 1, nextCatalogId: 100, nextFileId: 100, ...over } as SnapshotRow;
    return this.put(...createSnapshot(snapshotId(id), row, { changes: [], author: null, message: null, extraInfo: null, maintenance: false }, false));
  }

  schema(id: number, name: string, begin: number, end?: number, row: Record<string, unknown> = {}): this {
    const version = { name, uuid: `u${id}`, ...row };
    this.put(schemaEntity(catalogId(id)).create(snapshotId(begin), version), schemaNameEntity(name).create(snapshotId(begin), { schemaId: catalogId(id) }));
    if (end !== undefined) this.put(...schemaEntity(catalogId(id)).end({ begin: snapshotId(begin), row: version }, snapshotId(end)), ...schemaNameEntity(name).end({ begin: snapshotId(begin), row: { schemaId: catalogId(id) } }, snapshotId(end)));
    return this;
  }

  relation(kind: 'table' | 'view', id: number, name: string, begin: number, end?: number, row: Record<string, unknown> = {}): this {
    const entity = kind === 'table' ? tableEntity(catalogId(id)) : viewEntity(catalogId(id));
    const version = { schemaId: catalogId(0), name, uuid: `u${id}`, dialect: 'duckdb', sql: 'SELECT 1', ...row };
    const named = relationNameEntity(catalogId(0), name);
    const entry = { kind, id: catalogId(id) };
    this.put(entity.create(snapshotId(begin), version), named.create(snapshotId(begin), entry));
    if (end !== undefined) this.put(...entity.end({ begin: snapshotId(begin), row: version }, snapshotId(end)), ...named.end({ begin: snapshotId(begin), row: entry }, snapshotId(end)));
    return this;
  }

  /** Data files one commit added to a table: rows, manifest, file→table entries, paths. */
  files(tableId: number, begin: number, specs: FileSpec[]): this {
    const rows = specs.map((s) => [s.id, this.fileRow(s)] as const);
    for (const [id, row] of rows) {
      this.put(dataFileEntity(catalogId(tableId), fileId(id)).create(snapshotId(begin), row));
      this.named(row.path, id);
    }
    return this.put(...addedDataFiles(catalogId(tableId), snapshotId(begin), rows.map(([id, row]) => manifestFile(fileId(id), row))));
  }

  /** A data file of `files` ended at `end`: its row, its end-index entry (with the path), its end by file id. */
  endFile(tableId: number, begin: number, spec: FileSpec, end: number): this {
    return this.put(...dataFileEntity(catalogId(tableId), fileId(spec.id)).end({ begin: snapshotId(begin), row: this.fileRow(spec) }, snapshotId(end)));
  }

  deleteFile(tableId: number, id: number, begin: number, row: Omit<Partial<DeleteFileRow>, 'dataFileId'> & { dataFileId: number }, end?: number): this {
    const version = { path: `t/${id}-del.parquet`, format: 'parquet', deleteCount: 1, fileSizeBytes: 10, ...row, dataFileId: fileId(row.dataFileId) };
    const entity = deleteFileEntity(catalogId(tableId), fileId(id));
    this.put(entity.create(snapshotId(begin), version));
    if (end !== undefined) this.put(...entity.end({ begin: snapshotId(begin), row: version }, snapshotId(end)));
    this.named(version.path, id);
    return this;
  }

  stats(tableId: number, row: Partial<TableStatsRow>): this {
    return this.put(putTableStats(catalogId(tableId), { recordCount: 0, nextRowId: 0, fileSizeBytes: 0, ...row }));
  }

  census(slice: CensusSlice = WHOLE_CENSUS): Census {
    const census = new Census(slice);
    const all = new Map(this.values);
    for (const [path, ids] of this.paths) {
      for (const id of ids) {
        const m = pathRef(path, fileId(id));
        if (m.type === 'put' && !all.has(Buffer.from(m.key).toString('hex'))) all.set(Buffer.from(m.key).toString('hex'), [m.key, m.value]);
      }
    }
    for (const [, [k, v]] of [...all].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) census.visit(k, v);
    return census;
  }

  /**
   * What one whole census finds; every case also checks that a census in 2, 3 and 5 slices, each visiting every
   * key, finds the same between them (verify slices a large catalog's census to bound its memory).
   */
  verify(): Violation[] {
    const whole = this.census().finish();
    const canonical = (vs: Violation[]) => vs.map((v) => JSON.stringify(v)).sort();
    for (const of of [2, 3, 5]) {
      const sliced = mergeSlices(Array.from({ length: of }, (_, slice) => this.census({ slice, of }).finish()));
      expect(canonical(sliced), `in ${of} slices`).toEqual(canonical(whole));
    }
    return whole;
  }

  private fileRow(s: FileSpec): Omit<DataFileRow, 'end'> {
    const row: Omit<DataFileRow, 'end'> = { path: s.path ?? `t/${s.id}.parquet`, format: 'parquet', recordCount: s.recordCount ?? 10, fileSizeBytes: s.fileSizeBytes ?? 100, footerSize: null, rowIdStart: s.rowIdStart ?? 0 };
    if (s.contentCrc32 !== undefined) row.contentCrc32 = s.contentCrc32;
    if (s.mappingId !== undefined) row.mappingId = s.mappingId as never;
    return row;
  }

  private named(path: string, id: number): void {
    this.paths.set(path, [...(this.paths.get(path) ?? []), id]);
  }
}

const broke = (rule: string) => ({
  invariant: 'values-decode',
  message: expect.stringMatching(new RegExp(`^the ${rule} rule could not read what the index holds \\(.+\\): a value has the wrong shape; rebuild the index from the store$`)),
});

const keyspace = () => new Keyspace().snapshot(1).snapshot(2).snapshot(3);
const mapping = (mappingId: number) => ({ mappingId: catalogId(mappingId), type: 'map_by_name' as const, columns: [{ columnId: 1, sourceName: 'a', targetFieldId: 1, parentColumn: null, isPartition: false }] });

describe('a keyspace as the families write it is clean', () => {
  it('schemas, tables and views renamed and dropped, files added, ended and deleted from, a mapping, stats, tags', () => {
    const k = keyspace()
      .schema(1, 's', 1, 2)
      .schema(1, 's2', 2)
      .relation('table', 5, 't', 1)
      .relation('view', 6, 'v', 1, 3)
      .files(5, 1, [{ id: 10, recordCount: 4, rowIdStart: 0, mappingId: 9 }, { id: 11, recordCount: 6, rowIdStart: 4 }])
      .endFile(5, 1, { id: 11, recordCount: 6, rowIdStart: 4 }, 3)
      .put(putNameMapping(catalogId(5), fileId(10), snapshotId(1), mapping(9)))
      .deleteFile(5, 12, 2, { dataFileId: 10 })
      .stats(5, { recordCount: 4, fileSizeBytes: 100, nextRowId: 10, dataFiles: 1, endedFiles: 1 })
      .put(putTag('release', { snapshot: snapshotId(2), createdAt: 0 }), putRetainFrom({ snapshot: snapshotId(1), since: 0 }));
    expect(k.verify()).toEqual([]);
  });

  it('with nothing in it, counters at 0 are above every id: there is none', () => {
    expect(new Keyspace().snapshot(1, { nextCatalogId: 0, nextFileId: 0 }).verify()).toEqual([]);
  });

  it('a commit of more files than one manifest value holds: its parts are read with the first', () => {
    const n = MANIFEST_PART_FILES + 2;
    const files = Array.from({ length: n }, (_, i) => ({ id: 10 + i, rowIdStart: 10 * i }));
    const k = new Keyspace().snapshot(1, { nextFileId: 10 + n }).relation('table', 5, 't', 1).files(5, 1, files);
    expect(k.verify()).toEqual([]);
  });

  it('a delete file that deleted every row of its data file ends where it begins: recorded, visible nowhere', () => {
    const k = keyspace().relation('table', 5, 't', 1).files(5, 1, [{ id: 10 }]).endFile(5, 1, { id: 10 }, 2).deleteFile(5, 11, 2, { dataFileId: 10 }, 2);
    expect(k.verify()).toEqual([]);
  });

  it("a table's end-index entry is checked by its key: nothing is recorded beside it, and nothing is read", () => {
    const k = keyspace().relation('table', 5, 't', 1, 2);
    const entry = endIndexKey(2, tableEntity(catalogId(5)).key(1));
    expect(k.verify()).toEqual([]);
    // Whatever the entry holds (a file's would be its path), the table's version is checked against its key.
    expect(k.raw(entry, { path: 't/5.parquet' }).verify()).toEqual([]);
  });
});

describe('each rule, what it reports', () => {
  it('a name mapping whose id is at or past next_catalog_id, and one a file names but that is not there', () => {
    const k = keyspace()
      .relation('table', 5, 't', 1)
      .files(5, 1, [{ id: 10, mappingId: 120 }, { id: 11, mappingId: 121 }])
      .put(putNameMapping(catalogId(5), fileId(10), snapshotId(1), mapping(120)));
    expect(k.verify()).toEqual([
      { invariant: 'counters-above-every-id', message: 'next_catalog_id is 100, but catalog id 120 is in use' },
      { invariant: 'name-mappings-have-their-file', key: 'DataFile[5,11,@1]', message: 'data file 11 names mapping 121, which it has no value for: it would be read by field ids it lacks' },
    ]);
  });

  it('file ids at or past next_file_id: the greatest of data and delete files is named', () => {
    const k = keyspace().relation('table', 5, 't', 1).files(5, 1, [{ id: 112 }]).deleteFile(5, 111, 2, { dataFileId: 112 });
    expect(k.verify()).toEqual([{ invariant: 'counters-above-every-id', message: 'next_file_id is 100, but file id 112 is in use' }]);
  });

  it('a run whose last id is no number is reported as a run, and the counters are still checked (found by review: the NaN silenced them)', () => {
    const k = keyspace().relation('table', 5, 't', 1).files(5, 1, [{ id: 112 }]).raw(idRangeKey(fileId(112)), { tableId: 5, begin: 1 });
    const found = k.verify();
    expect(found).toContainEqual({ invariant: 'counters-above-every-id', message: 'next_file_id is 100, but file id 112 is in use' });
    expect(found.map((v) => v.invariant)).toContain('file-table-index-names-each-file');
  });

  it('a schema, a table and a view the name index lacks, each called by what it is', () => {
    const k = keyspace().schema(1, 's', 1).relation('table', 5, 't', 1).relation('view', 6, 'v', 2);
    k.put({ type: 'del', key: schemaNameEntity('s').key(1) }, { type: 'del', key: relationNameEntity(catalogId(0), 't').key(1) }, { type: 'del', key: relationNameEntity(catalogId(0), 'v').key(2) });
    expect(k.verify()).toEqual([
      { invariant: 'name-index-covers-every-name', key: 'Schema[1,@1]', message: 'schema 1 is called "s" at snapshot 1, but the name index gives nothing there' },
      { invariant: 'name-index-covers-every-name', key: 'Table[5,@1]', message: 'table or view 5 is called "t" at snapshot 1, but the name index gives nothing there' },
      { invariant: 'name-index-covers-every-name', key: 'View[6,@2]', message: 'table or view 6 is called "v" at snapshot 2, but the name index gives nothing there' },
    ]);
  });

  it('a snapshot named by several rows and missing is reported at the first of them in key order', () => {
    const k = new Keyspace().snapshot(1).snapshot(2).schema(1, 's', 1, 4);
    expect(k.verify()).toEqual([{ invariant: 'named-snapshots-exist', key: 'Schema[1,@1]', message: 'snapshot 4 is named here (at or above retain-from 0) but has no record' }]);
  });

  it('a head naming a snapshot that has no row: the head rule says so, and the counters are not checked', () => {
    const k = keyspace().put(putHeadSnapshot(snapshotId(7))).relation('table', 500, 't', 1);
    expect(k.verify()).toEqual([{ invariant: 'head-is-the-newest-snapshot', message: 'the head names snapshot 7; the newest snapshot row is 3' }]);
  });

  it('a column id floor kept for an id no table has a version of (a view is no table)', () => {
    const k = keyspace().relation('table', 5, 't', 1).relation('view', 6, 'v', 1).raw(columnIdFloorKey(catalogId(5)), { next: 3 }).raw(columnIdFloorKey(catalogId(6)), { next: 3 });
    expect(k.verify()).toEqual([
      { invariant: 'column-id-floor', key: 'ColumnIdFloor[6]', message: "table 6 has no version left, but its column id floor is kept: excision removes it with the table's last version" },
    ]);
  });

  it("table stats are added up for live tables only: a dropped table keeps its last ones, a view's id is no table", () => {
    const wrong = { recordCount: 7, fileSizeBytes: 70, dataFiles: 1 };
    const k = keyspace().relation('table', 5, 't', 1).relation('table', 6, 'u', 1, 2).relation('view', 7, 'v', 1).stats(5, wrong).stats(6, wrong).stats(7, wrong);
    expect(k.verify()).toEqual([
      { invariant: 'table-stats-add-up', key: 'TableStats[5]', message: "table 5's stats say 1 files with 7 records in 70 bytes; its live files are 0 with 0 in 0" },
    ]);
  });

  it("a table's next row id must be past the last row id a file took (start + count)", () => {
    const k = keyspace().relation('table', 5, 't', 1).files(5, 1, [{ id: 10, recordCount: 5, rowIdStart: 10 }]);
    expect(k.stats(5, { recordCount: 5, fileSizeBytes: 100, dataFiles: 1, nextRowId: 15 }).verify()).toEqual([]);
    expect(k.stats(5, { recordCount: 5, fileSizeBytes: 100, dataFiles: 1, nextRowId: 12 }).verify()).toEqual([
      { invariant: 'table-stats-add-up', key: 'TableStats[5]', message: "table 5's next row id is 12, but its files took row ids up to 14" },
    ]);
  });
});

describe('what verify checks in the store', () => {
  it("every object path the rows name, with each distinct size and CRC-32 its rows record (a delete file's too)", () => {
    const k = keyspace()
      .relation('table', 5, 't', 1)
      .files(5, 1, [{ id: 10, path: 'p.parquet', fileSizeBytes: 100, contentCrc32: 7 }, { id: 11, path: 'p.parquet', fileSizeBytes: 100, contentCrc32: 7 }, { id: 12, path: 'p.parquet', fileSizeBytes: 120 }, { id: 13, path: 'q.parquet', fileSizeBytes: 5 }])
      .deleteFile(5, 14, 2, { dataFileId: 10, path: 'd.parquet', fileSizeBytes: 9, contentCrc32: 1234 });
    expect(k.verify()).toEqual([]);
    expect(k.census().namedFiles()).toEqual(
      new Map([
        ['p.parquet', [{ fileSizeBytes: 100, contentCrc32: 7 }, { fileSizeBytes: 120, contentCrc32: null }]],
        ['q.parquet', [{ fileSizeBytes: 5, contentCrc32: null }]],
        ['d.parquet', [{ fileSizeBytes: 9, contentCrc32: 1234 }]],
      ]),
    );
    // In slices, each path is named by one of them, whole.
    for (const of of [2, 3, 5]) {
      const slices = Array.from({ length: of }, (_, slice) => [...k.census({ slice, of }).namedFiles()]).flat();
      expect(new Map(slices)).toEqual(k.census().namedFiles());
      expect(slices).toHaveLength(3);
    }
  });

  it("every delete file with the record count of its data file; one whose data file has no row is not there to check", () => {
    const k = keyspace().relation('table', 5, 't', 1).files(5, 1, [{ id: 10, recordCount: 40 }]).deleteFile(5, 14, 2, { dataFileId: 10, deleteCount: 3 }).deleteFile(5, 15, 2, { dataFileId: 99 });
    expect(k.census().deleteFilesOfData()).toEqual([{ path: 't/14-del.parquet', fileSizeBytes: 10, contentCrc32: null, deleteCount: 3, dataFileId: 10, recordCount: 40 }]);
    for (const of of [2, 3, 5]) {
      expect(Array.from({ length: of }, (_, slice) => k.census({ slice, of }).deleteFilesOfData()).flat()).toEqual(k.census().deleteFilesOfData());
    }
  });
});

describe('a value of the wrong shape breaks the rule that reads it, which says so', () => {
  const decodeProblems = (k: Keyspace) => k.verify().filter((v) => v.invariant === 'values-decode');
  const dataFile = () => keyspace().relation('table', 5, 't', 1).files(5, 1, [{ id: 10 }]);

  it('snapshot: a time that is no number; the rules after it still run', () => {
    const k = keyspace()
      .raw(snapshotKey(4), { time: UNPRINTABLE, schemaVersion: 1, nextCatalogId: 100, nextFileId: 100 })
      .raw(snapshotChangesKey(4), { changes: [] })
      .raw(encodeKey(Space.SnapshotTimeIndex, [40], 4), {})
      .put(putHeadSnapshot(snapshotId(4)))
      .raw(columnIdFloorKey(catalogId(9)), { next: 3 });
    expect(k.verify()).toEqual([
      broke('snapshot'),
      { invariant: 'column-id-floor', key: 'ColumnIdFloor[9]', message: "table 9 has no version left, but its column id floor is kept: excision removes it with the table's last version" },
    ]);
  });

  it('referenced snapshot: a retain-from that is no number', () => {
    expect(decodeProblems(keyspace().schema(1, 's', 1).put(putRow(encodeKey(Space.System, [5]), { snapshot: UNPRINTABLE, since: 0 })))).toEqual([broke('referenced snapshot')]);
  });

  it('tag: a tagged snapshot that is no number', () => {
    expect(decodeProblems(keyspace().put(putRow(encodeKey(Space.SnapshotTag, ['x']), { snapshot: UNPRINTABLE, createdAt: 0 })))).toEqual([broke('tag')]);
  });

  it("counter: the head's next_catalog_id that is no number", () => {
    expect(decodeProblems(new Keyspace().snapshot(1, { nextCatalogId: UNPRINTABLE }))).toEqual([broke('counter')]);
  });

  it('schema name index: a schema name that is no string', () => {
    expect(decodeProblems(keyspace().schema(1, 's', 1, undefined, { name: UNPRINTABLE }))).toEqual([broke('schema name index')]);
  });

  it('relation name index: a schema id that is no number', () => {
    expect(decodeProblems(keyspace().relation('table', 5, 't', 1, undefined, { schemaId: UNPRINTABLE }))).toEqual([broke('relation name index')]);
  });

  it('manifest: files that are no list', () => {
    expect(decodeProblems(keyspace().raw(encodeKey(Space.DataFileManifest, [5], 1), { files: 5 }))).toEqual([broke('manifest')]);
  });

  it('file table: a table id that is no number, in a run and in an entry from before decision 0068', () => {
    expect(decodeProblems(dataFile().raw(idRangeKey(fileId(10)), { tableId: UNPRINTABLE, lastId: 10, begin: 1 }))).toEqual([broke('file table')]);
    expect(decodeProblems(dataFile().put(del(idRangeKey(fileId(10)))).raw(encodeKey(Space.FileTableIndex, [10], 1), { tableId: UNPRINTABLE }))).toEqual([broke('file table')]);
  });

  it('data file end: an end that is no number', () => {
    expect(decodeProblems(dataFile().endFile(5, 1, { id: 10 }, 2).raw(encodeKey(Space.DataFileEndIndex, [5, 10]), { end: UNPRINTABLE }))).toEqual([broke('data file end')]);
  });

  it('path index: file ids that are no list', () => {
    expect(decodeProblems(keyspace().raw(encodeKey(Space.FilePathIndex, ['x.parquet']), { fileIds: 5 }))).toEqual([broke('path index')]);
  });

  it("name mapping: a file's mapping id that is no number", () => {
    const k = keyspace().relation('table', 5, 't', 1).files(5, 1, [{ id: 10, mappingId: UNPRINTABLE }]).put(putNameMapping(catalogId(5), fileId(10), snapshotId(1), mapping(9)));
    expect(decodeProblems(k)).toEqual([broke('name mapping')]);
  });

  it('end index: a path that cannot be printed', () => {
    const k = dataFile().endFile(5, 1, { id: 10 }, 2);
    const entry = endIndexKey(2, dataFileEntity(catalogId(5), fileId(10)).key(1));
    expect(decodeProblems(k.raw(entry, { path: 2n ** 60n }))).toEqual([broke('end index')]);
  });

  it('table stats: an ended-file count that is no number', () => {
    expect(decodeProblems(keyspace().relation('table', 5, 't', 1).stats(5, { endedFiles: UNPRINTABLE as never }))).toEqual([broke('table stats')]);
  });

  it('column id floor: a floor that is no number', () => {
    expect(decodeProblems(keyspace().relation('table', 5, 't', 1).raw(columnIdFloorKey(catalogId(5)), { next: UNPRINTABLE }))).toEqual([broke('column id floor')]);
  });
});

describe('damage in a slice other than the first: each slice decodes all it looks at, so all slices together report what one census does', () => {
  // Join keys 7, 11 and 13 fall in no slice 0 of 2, 3 or 5; every case is also checked in those slices (Keyspace.verify).
  const NOT_MSGPACK = Uint8Array.of(1, 0xc1);
  const undecodable = (k: Keyspace, key: Key) => expect(k.bytes(key, NOT_MSGPACK).verify()).toContainEqual(expect.objectContaining({ invariant: 'values-decode', key: keyToString(key) }));

  it("a table's stats, a file's column statistics, a manifest that does not decode", () => {
    undecodable(keyspace().relation('table', 7, 't', 1), encodeKey(Space.TableStats, [7]));
    undecodable(keyspace().relation('table', 7, 't', 1), fileColumnStatsKey(catalogId(7), fileId(11), snapshotId(1)));
    undecodable(keyspace().relation('table', 7, 't', 1), encodeKey(Space.DataFileManifest, [7], 1));
    // At a snapshot that has no record: what names it is the manifest, which does not decode.
    expect(keyspace().bytes(encodeKey(Space.DataFileManifest, [7], 13), NOT_MSGPACK).verify()).toEqual([
      expect.objectContaining({ invariant: 'values-decode', key: keyToString(encodeKey(Space.DataFileManifest, [7], 13)) }),
    ]);
  });

  it('a snapshot row that does not decode is no record: what names it is reported', () => {
    const k = keyspace().relation('table', 7, 't', 3).bytes(snapshotKey(3), NOT_MSGPACK);
    expect(k.verify().map((v) => v.invariant).sort()).toEqual(['head-is-the-newest-snapshot', 'named-snapshots-exist', 'snapshot-records-are-whole', 'time-index-equals-the-snapshots', 'values-decode']);
  });

  it('a retain-from of the wrong shape, met by every slice that holds a named snapshot, is reported once', () => {
    const k = keyspace().relation('table', 7, 't', 1).relation('table', 8, 'u', 2).relation('table', 9, 'v', 3).put(putRow(encodeKey(Space.System, [5]), { snapshot: UNPRINTABLE, since: 0 }));
    expect(k.verify().filter((v) => v.invariant === 'values-decode')).toEqual([broke('referenced snapshot')]);
  });

  it('an end that is a number written as text joins its end-index entry as the rules join it', () => {
    const spec = { id: 11 };
    const k = keyspace().relation('table', 7, 't', 1).files(7, 1, [spec]).endFile(7, 1, spec, 3);
    expect(k.verify()).toEqual([]);
    const row = { path: 't/11.parquet', format: 'parquet', recordCount: 10, fileSizeBytes: 100, footerSize: null, rowIdStart: 0, end: '3' };
    k.raw(dataFileEntity(catalogId(7), fileId(11)).key(snapshotId(1)), row);
    expect(k.verify().map((v) => v.invariant)).not.toContain('end-index-lists-every-end');
  });

  it("a file row with no path still counts its id against the counters, and is named by no path", () => {
    const row = { format: 'parquet', recordCount: 10, fileSizeBytes: 100, footerSize: null, rowIdStart: 0 };
    const k = keyspace().relation('table', 7, 't', 1).raw(dataFileEntity(catalogId(7), fileId(151)).key(snapshotId(1)), { ...row, end: null });
    const found = k.verify().map((v) => v.invariant);
    expect(found).toContain('counters-above-every-id');
    expect(found).toContain('path-index-names-every-row');
  });

  it("a head naming an older snapshot: the counters are checked against that snapshot's, as the next commit would take them", () => {
    const k = keyspace().snapshot(2, { nextFileId: 5 }).relation('table', 7, 't', 1).files(7, 1, [{ id: 11 }]).put(putHeadSnapshot(snapshotId(2)));
    expect(k.verify().map((v) => v.invariant).sort()).toEqual(['counters-above-every-id', 'head-is-the-newest-snapshot']);
  });
});

describe("a version's end of the wrong shape", () => {
  it('is reported by each rule that reads it, its run of versions included, and verify goes on: in the last run or any other', () => {
    const endless = (k: Keyspace) => k.raw(schemaEntity(catalogId(1)).key(1), { name: 's1', uuid: 'u', end: UNPRINTABLE });
    for (const k of [endless(keyspace()), endless(keyspace()).schema(2, 's2', 1)]) {
      expect(k.verify()).toEqual([{ ...broke('version'), key: 'Schema[1,@1]' }, broke('referenced snapshot'), broke('schema name index'), broke('end index')]);
    }
  });
});
