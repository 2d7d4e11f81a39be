// Groups (keys/groups.ts): which prefixes the version cache keeps as one group, the group one level up that a
// read-ahead reads, a group's name in the cache (equal for a group read and the keys written into it), and
// the points cached by key.
import { describe, expect, it } from 'vitest';
import { cachedGroupOf, cachedKind, group, type GroupKind, groupId, groupPrefix, isImmutablePoint, parentGroup } from '../../keys/groups.js';
import { encodeKey, keyPrefix } from '../../keys/key-codec.js';
import { relationNamesIn } from '../../keys/relations.js';
import { snapshotChangesKey, snapshotKey } from '../../keys/snapshots.js';
import { Space, SPACE_SPECS } from '../../keys/spaces.js';
import { catalogId } from '../../keys/ids.js';

describe('groups', () => {
  it('one level up drops the last field', () => {
    expect(parentGroup(group(Space.Table, [3]))).toEqual({ space: Space.Table, fields: [] });
    expect(parentGroup(group(Space.RelationNameIndex, [3, 'orders']))).toEqual({ space: Space.RelationNameIndex, fields: [3] });
    expect(parentGroup(group(Space.DataFileManifestPart, [1, 2, 3]))).toEqual({ space: Space.DataFileManifestPart, fields: [1, 2] });
  });

  it('are cached at the depth their space is grouped at, and nowhere else', () => {
    expect(cachedKind(group(Space.Table, [3]))).toEqual({ fields: 1, metadata: true, readAheadOn: 8 });
    expect(cachedKind(group(Space.RelationNameIndex, [3, 'orders']))).toEqual({ fields: 2, metadata: true, readAheadOn: 8 });
    expect(cachedKind(group(Space.DataFile, [3]))).toEqual({ fields: 1, metadata: false });
    expect(cachedKind(group(Space.Table))).toBeUndefined();
    expect(cachedKind(group(Space.RelationNameIndex, [3]))).toBeUndefined();
    expect(cachedKind(group(Space.Snapshot))).toBeUndefined();
    expect(cachedKind(group(Space.TableStats, [3]))).toBeUndefined();
  });

  it('metadata groups are cached and read ahead from the eighth miss under their parent (schemas from the second), a table\'s files alone, nothing else at all', () => {
    const metadata = { fields: 1, metadata: true, readAheadOn: 8 };
    const files = { fields: 1, metadata: false };
    const policy = new Map<Space, GroupKind>([
      [Space.Schema, { ...metadata, readAheadOn: 2 }],
      [Space.Table, metadata],
      [Space.View, metadata],
      [Space.Column, metadata],
      [Space.SchemaNameIndex, { ...metadata, readAheadOn: 2 }],
      [Space.RelationNameIndex, { ...metadata, fields: 2 }],
      [Space.DataFile, files],
      [Space.DeleteFile, files],
    ]);
    for (const [space, spec] of SPACE_SPECS) {
      const want = policy.get(space);
      for (let n = 0; n <= spec.fields.length; n++) {
        const fields = spec.fields.slice(0, n).map((kind, i) => (kind === 'name' ? 'n' : i + 1));
        expect(cachedKind(group(space, fields)), `${spec.name} by ${n} fields`).toEqual(want?.fields === n ? want : undefined);
      }
    }
  });

  it("are named by space and fields: a written key's group has the name its read had, and others differ", () => {
    const names = [group(Space.Table, [3]), group(Space.Table, [4]), group(Space.View, [3]), group(Space.Table), group(Space.RelationNameIndex, [3, 'a']), group(Space.RelationNameIndex, [3]), group(Space.RelationNameIndex, [1, '23']), group(Space.RelationNameIndex, [12, '3'])].map(groupId);
    expect(new Set(names).size).toBe(names.length);
    expect(cachedGroupOf(encodeKey(Space.Table, [3], 9))).toEqual({ id: groupId(group(Space.Table, [3])), parentId: groupId(group(Space.Table)), kind: { fields: 1, metadata: true, readAheadOn: 8 } });
    expect(cachedGroupOf(encodeKey(Space.RelationNameIndex, [3, 'a'], 9))).toEqual({
      id: groupId(group(Space.RelationNameIndex, [3, 'a'])),
      parentId: groupId(relationNamesIn(catalogId(3))),
      kind: { fields: 2, metadata: true, readAheadOn: 8 },
    });
    expect(cachedGroupOf(snapshotKey(3))).toBeUndefined();
  });

  it("a schema's relation names are the group under its id", () => {
    expect(relationNamesIn(catalogId(3))).toEqual({ space: Space.RelationNameIndex, fields: [3] });
    expect(Buffer.from(groupPrefix(relationNamesIn(catalogId(3))))).toEqual(Buffer.from(keyPrefix(Space.RelationNameIndex, [3])));
  });

  it("immutable points are a snapshot's row and its changes, nothing else", () => {
    expect(isImmutablePoint(snapshotKey(3))).toBe(true);
    expect(isImmutablePoint(snapshotChangesKey(3))).toBe(true);
    expect(isImmutablePoint(encodeKey(Space.Table, [3], 3))).toBe(false);
    expect(isImmutablePoint(encodeKey(Space.SchemaVersions, [], 3))).toBe(false);
  });
});
