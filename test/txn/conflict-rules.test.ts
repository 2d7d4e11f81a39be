// DuckLake's conflict rules, one by one, as `ruleConflict` applies them to two commits' footprints: each pair
// of kinds that must not meet on one object is a CONFLICT naming that object, and the pairs that commute
// (two inserts into one table, an insert and a delete) are not.
import { describe, expect, it } from 'vitest';
import { catalogId, snapshotId } from '../../keys/ids.js';
import { type Footprint, footprintOf, type OwnFootprint, ruleConflict } from '../../src/txn/conflicts.js';

const ours = (changes: string[], more: Partial<OwnFootprint> = {}): OwnFootprint => ({
  ...footprintOf(changes),
  createdInSchemas: new Set(),
  droppedSchemaNames: new Map(),
  deletedDataFiles: new Map(),
  restoredTables: new Set(),
  restoresCatalog: false,
  ...more,
});
const theirs = (changes: string[]): Footprint => footprintOf(changes);
const at = snapshotId(7);

describe('ruleConflict', () => {
  // [our change, their change, what the message says]
  const conflicting: [string, string, RegExp][] = [
    ['dropped_table:5', 'dropped_table:5', /drops table 5, but another transaction dropped it already/],
    ['dropped_view:5', 'dropped_view:5', /drops view 5, but another transaction dropped it already/],
    ['dropped_schema:5', 'dropped_schema:5', /drops schema 5, but another transaction dropped it already/],
    ['created_schema:"s"', 'created_schema:"s"', /creates schema "s", but another transaction created a schema of that name/],
    ['created_table:"s"."t"', 'created_view:"s"."t"', /creates "s"."t", but another transaction created an entry of that name/],
    ['inserted_into_table:5', 'dropped_table:5', /inserts into table 5, but another transaction dropped it/],
    ['inserted_into_table:5', 'altered_table:5', /inserts into table 5, but another transaction altered it/],
    ['deleted_from_table:5', 'dropped_table:5', /deletes from table 5, but another transaction dropped it/],
    ['deleted_from_table:5', 'altered_table:5', /deletes from table 5, but another transaction altered it/],
    ['compacted_table:5', 'dropped_table:5', /compacts table 5, but another transaction dropped it/],
    ['compacted_table:5', 'compacted_table:5', /compacts table 5, but another transaction compacted it/],
    ['altered_table:5', 'dropped_table:5', /alters table 5, but another transaction dropped it/],
    ['altered_table:5', 'altered_table:5', /alters table 5, but another transaction altered it/],
  ];
  it.each(conflicting)('%s against %s is a CONFLICT', (mine, other, message) => {
    const e = ruleConflict(at, ours([mine]), theirs([other]));
    expect(e).toMatchObject({ code: 'CONFLICT', snapshot: 7 });
    expect(e!.message).toMatch(message);
    // The same kinds on different objects commute.
    const elsewhere = other.replace(/5$/, '6').replace(/"t"$/, '"u"').replace(/"s"$/, '"r"');
    expect(ruleConflict(at, ours([mine]), theirs([elsewhere]))).toBeUndefined();
  });

  it.each([
    ['inserted_into_table:5', 'inserted_into_table:5'],
    ['inserted_into_table:5', 'deleted_from_table:5'],
    ['deleted_from_table:5', 'inserted_into_table:5'],
    ['inserted_into_table:5', 'compacted_table:5'],
    // A compaction and a delete meet on files (fileConflict), not on the table.
    ['deleted_from_table:5', 'compacted_table:5'],
    ['compacted_table:5', 'deleted_from_table:5'],
    ['created_table:"s"."t"', 'dropped_table:5'],
  ])('%s against %s commutes', (mine, other) => {
    expect(ruleConflict(at, ours([mine]), theirs([other]))).toBeUndefined();
  });

  it('checks what only the pending state knows: creations in a dropped schema, drops of a schema they create in, restores', () => {
    expect(ruleConflict(at, ours([], { createdInSchemas: new Set([catalogId(3)]) }), theirs(['dropped_schema:3']))?.message).toMatch(
      /creates an entry in schema 3, but another transaction dropped that schema/,
    );
    expect(ruleConflict(at, ours([], { createdInSchemas: new Set([catalogId(3)]) }), theirs(['dropped_schema:4']))).toBeUndefined();
    const dropsS = ours(['dropped_schema:3'], { droppedSchemaNames: new Map([[catalogId(3), 's']]) });
    expect(ruleConflict(at, dropsS, theirs(['created_table:"s"."t"']))?.message).toMatch(/drops schema "s" \(id 3\), but another transaction created an entry in it/);
    expect(ruleConflict(at, dropsS, theirs(['created_table:"s2"."t"']))).toBeUndefined();
    for (const change of ['inserted_into_table:5', 'deleted_from_table:5', 'compacted_table:5', 'dropped_table:5', 'altered_table:5']) {
      expect(ruleConflict(at, ours([], { restoredTables: new Set([catalogId(5)]) }), theirs([change]))?.message).toMatch(
        /restores table 5, but another transaction changed it/,
      );
    }
    expect(ruleConflict(at, ours([], { restoredTables: new Set([catalogId(5)]) }), theirs(['inserted_into_table:6']))).toBeUndefined();
    expect(ruleConflict(at, ours([], { restoresCatalog: true }), theirs(['inserted_into_table:6']))?.message).toMatch(/restores the whole catalog/);
  });

  it('names the first rule broken, in DuckLake order', () => {
    const e = ruleConflict(at, ours(['dropped_table:5', 'inserted_into_table:5']), theirs(['dropped_table:5']));
    expect(e!.message).toMatch(/drops table 5, but another transaction dropped it already/);
  });
});
