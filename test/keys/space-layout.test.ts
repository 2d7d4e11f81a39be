// The space registry (keys/spaces.ts) is the on-disk key format: each space's byte, category, identifying
// fields and the spaces an index points at, as ARCHITECTURE.md's keyspace table documents them. A change here
// is a format change, never a refactor.
import { describe, expect, it } from 'vitest';
import { decodeKey, encodeKey } from '../../keys/key-codec.js';
import { Space, SPACE_SPECS, spaceSpec } from '../../keys/spaces.js';

type Row = [name: string, byte: number, category: string, fields: string[], indexes?: Space[]];
const u = 'u64';
const n = 'name';
const S = Space;

// ARCHITECTURE.md, "Keyspace": the table, row by row.
const DOCUMENTED: Row[] = [
  ['Snapshot', 0x01, 'append-only', []],
  ['SnapshotChanges', 0x02, 'append-only', []],
  ['SchemaVersions', 0x03, 'append-only', []],
  ['SnapshotTimeIndex', 0x04, 'append-only', [u], [S.Snapshot]],
  ['Schema', 0x10, 'versioned', [u]],
  ['Table', 0x11, 'versioned', [u]],
  ['Column', 0x12, 'versioned', [u, u]],
  ['View', 0x13, 'versioned', [u]],
  ['Macro', 0x14, 'versioned', [u]],
  ['PartitionInfo', 0x15, 'versioned', [u, u]],
  ['ObjectTag', 0x16, 'versioned', [u, n]],
  ['ColumnTag', 0x17, 'versioned', [u, u, n]],
  ['DataFile', 0x20, 'append-only', [u, u]],
  ['DeleteFile', 0x21, 'append-only', [u, u]],
  ['FileColumnStats', 0x22, 'append-only', [u, u]],
  ['DataFileManifest', 0x23, 'append-only', [u], [S.DataFile]],
  ['DataFileManifestPart', 0x24, 'singleton', [u, u, u], [S.DataFile]],
  ['NameMapping', 0x25, 'append-only', [u, u]],
  ['DataFileBase', 0x26, 'append-only', [u], [S.DataFile]],
  ['DataFileBasePart', 0x27, 'singleton', [u, u, u], [S.DataFile]],
  ['Metadata', 0x30, 'singleton', [n]],
  ['TableStats', 0x31, 'singleton', [u]],
  ['TableColumnStats', 0x32, 'singleton', [u, u]],
  ['ColumnIdFloor', 0x33, 'singleton', [u]],
  ['SchemaNameIndex', 0x40, 'versioned', [n], [S.Schema]],
  ['RelationNameIndex', 0x41, 'versioned', [u, n], [S.Table, S.View]],
  ['FileTableIndex', 0x42, 'append-only', [u], [S.DataFile]],
  // Every space whose versions are written with an end.
  ['EndIndex', 0x43, 'singleton', [u], [S.Schema, S.Table, S.Column, S.View, S.DataFile, S.DeleteFile, S.SchemaNameIndex, S.RelationNameIndex]],
  ['FilePathIndex', 0x44, 'singleton', [n], [S.DataFile, S.DeleteFile]],
  ['DataFileEndIndex', 0x45, 'singleton', [u, u], [S.DataFile]],
  ['DataFileEndedAt', 0x46, 'singleton', [u, u, u], [S.DataFile]],
  ['FilePathRef', 0x47, 'singleton', [n, u], [S.DataFile, S.DeleteFile]],
  ['FileIdRange', 0x48, 'singleton', [u], [S.DataFile]],
  ['SnapshotTag', 0x50, 'singleton', [n]],
  ['Lease', 0x51, 'singleton', [n]],
  ['ReclaimSchedule', 0x52, 'singleton', [n]],
  ['ExcisionJob', 0x53, 'singleton', [u]],
  ['System', 0xf0, 'system', [u]],
];

describe('the key format of every space', () => {
  it('is the documented one: byte, category, fields, begin_snapshot where versioned or append-only, what an index points at', () => {
    const specs = [...SPACE_SPECS.entries()].map(([space, s]) => ({ space, ...s }));
    expect(specs).toEqual(
      DOCUMENTED.map(([name, byte, category, fields, indexes]) => ({
        space: byte,
        byte,
        name,
        category,
        fields,
        hasBegin: category === 'versioned' || category === 'append-only',
        ...(indexes === undefined ? {} : { indexes }),
      })),
    );
    for (const [name, byte] of DOCUMENTED) expect(spaceSpec(byte as Space).name).toBe(name);
  });

  it('a key of each space reads back as the tuple it was built from', () => {
    for (const [name, byte, category, fields] of DOCUMENTED) {
      const values = fields.map((kind, i) => (kind === u ? 2 ** 40 + i : `k${i}é`));
      const begin = category === 'versioned' || category === 'append-only' ? 7 : undefined;
      expect(decodeKey(encodeKey(byte as Space, values, begin)), name).toEqual({ space: byte, fields: values, ...(begin === undefined ? {} : { begin }) });
    }
  });
});
