// How an ended version leaves the keyspace. Excision (gc/excise.ts) decides *which* versions go; this says
// what each one takes with it, by its space: the row, its end-index entry, and the index entries that point
// at that row alone. Effects shared by many rows (a path nobody names any more, a manifest that loses
// files, a table whose last version goes) are reported for the batch to settle.
import { excisedDataFile } from './data-files.js';
import { excisedFileColumnStats } from './file-column-stats.js';
import { excisedNameMapping } from './name-mappings.js';
import { decodeEndIndexKey, decodeFilePathNote } from './end-index.js';
import { columnIdOf } from './columns.js';
import type { CatalogId, ColumnId, FileId } from './ids.js';
import { decodeKey, type Field, type Key } from './key-codec.js';
import { del, type Mutation } from './mutation.js';
import { Space } from './spaces.js';

/** An end-index entry, read: the version it names and the span it was visible for. */
export interface EndedVersion {
  indexKey: Key;
  indexValue: Uint8Array;
  key: Key;
  space: Space;
  fields: Field[];
  begin: number;
  end: number;
}

export function readEnded(indexKey: Key, indexValue: Uint8Array): EndedVersion {
  const { end, key } = decodeEndIndexKey(indexKey);
  const { space, fields, begin } = decodeKey(key);
  return { indexKey, indexValue, key, space, fields, begin: begin!, end };
}

export interface ExcisedVersion {
  mutations: Mutation[];
  /** A data or delete file row: the object path it named. */
  file?: { path: string; id: FileId };
  /** A data file row: the manifest that lists it. */
  manifest?: Key;
  /** A table version: the table (whose stats go with its last version). */
  table?: CatalogId;
  /** A column version: its table and id (which the table's column id floor must stay past). */
  column?: { table: CatalogId; id: ColumnId };
}

export function excise(v: EndedVersion): ExcisedVersion {
  const out: ExcisedVersion = { mutations: [del(v.indexKey), del(v.key)] };
  if (v.space === Space.DataFile || v.space === Space.DeleteFile) {
    out.file = { path: decodeFilePathNote(v.indexKey, v.indexValue), id: v.fields[1] as FileId };
  }
  if (v.space === Space.DataFile) {
    const more = excisedDataFile(v.fields, v.begin, v.end);
    out.mutations.push(...more.mutations, excisedFileColumnStats(v.fields, v.begin), excisedNameMapping(v.fields, v.begin));
    out.manifest = more.manifest;
  } else if (v.space === Space.Table) {
    out.table = v.fields[0] as CatalogId;
  } else if (v.space === Space.Column) {
    out.column = { table: v.fields[0] as CatalogId, id: columnIdOf(v.fields) };
  }
  return out;
}
