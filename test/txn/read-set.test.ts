// What a transaction's function read, held against another writer's commit it had not seen (decision 0057):
// each kind of read against each kind of change, the pairs that meet named and the pairs that commute left.
import { describe, expect, it } from 'vitest';
import { catalogId } from '../../keys/ids.js';
import { footprintOf } from '../../src/txn/conflicts.js';
import { changedRead, ReadSet } from '../../src/txn/read-set.js';

const T = catalogId(5);
const reads = {
  files: () => {
    const r = new ReadSet();
    r.lookedUp('main', 't', { id: T, files: true });
    return r;
  },
  definition: () => {
    const r = new ReadSet();
    r.lookedUp('main', 't', { id: T, files: false });
    return r;
  },
  missedName: () => {
    const r = new ReadSet();
    r.lookedUp('main', 't');
    return r;
  },
  listing: () => {
    const r = new ReadSet();
    r.listed('main', [{ id: T, name: 't' }]);
    return r;
  },
  schemas: () => {
    const r = new ReadSet();
    r.schemasListed = true;
    return r;
  },
  schema: () => {
    const r = new ReadSet();
    r.lookedUpSchema('main', catalogId(9));
    return r;
  },
  missedSchema: () => {
    const r = new ReadSet();
    r.lookedUpSchema('s');
    return r;
  },
  learnt: () => {
    const r = new ReadSet();
    r.learnt.add('the refusal of createSchema()');
    return r;
  },
};
type Read = keyof typeof reads;

// Every change another commit can make, and which reads it changes (with what the message says of it).
// Every change another commit can make, and which reads it changes (with what the message says of it); what
// the function learnt without reading (a refusal it caught) any change may change.
const ANY = /the refusal of createSchema\(\), changed the catalog/;
const changes: [string, Partial<Record<Read, RegExp>>][] = [
  ['inserted_into_table:5', { files: /files of table "main"\."t".*inserted into it/, learnt: ANY }],
  ['deleted_from_table:5', { files: /files of table "main"\."t".*deleted from it/, learnt: ANY }],
  ['restored_table:5', { files: /files of table "main"\."t".*restored it/, learnt: ANY }],
  ['dropped_table:5', { files: /files of table "main"\."t".*dropped it/, definition: /definition of "main"\."t".*dropped it/, listing: /definition of "main"\."t".*dropped it/, learnt: ANY }],
  [
    'altered_table:5',
    // A rename says the table's id, not its new name: a name that found nothing may be the new one.
    { files: /definition of "main"\."t".*altered it/, definition: /definition of "main"\."t".*altered it/, listing: /definition of "main"\."t".*altered it/, missedName: /name "main"\."t", which named nothing.*renamed it so/, learnt: ANY },
  ],
  ['dropped_view:5', { files: /definition of "main"\."t".*dropped it/, definition: /definition/, listing: /definition/, learnt: ANY }],
  // A compaction rewrites files without changing a row.
  ['compacted_table:5', { learnt: ANY }],
  ['created_table:"main"."t"', { files: /name "main"\."t".*gave it to a new table or view/, definition: /name/, missedName: /name "main"\."t"/, listing: /tables and views of schema "main".*added "main"\."t"/, learnt: ANY }],
  ['created_view:"main"."v"', { listing: /tables and views of schema "main".*added "main"\."v" to them/, learnt: ANY }],
  ['created_table:"other"."t"', { learnt: ANY }],
  ['created_schema:"s"', { schemas: /list of schemas.*changed it/, missedSchema: /schema "s".*created or dropped it/, learnt: ANY }],
  ['dropped_schema:9', { schemas: /list of schemas/, schema: /schema "main".*created or dropped it/, learnt: ANY }],
];

const read = (r: ReturnType<typeof changedRead>) => (r === undefined ? undefined : `${r.read}, ${r.change}`);

describe('changedRead', () => {
  for (const [change, hits] of changes) {
    it(`${change}: changes ${Object.keys(hits).join(', ') || 'nothing read'}`, () => {
      for (const kind of Object.keys(reads) as Read[]) {
        const got = read(changedRead(reads[kind](), footprintOf([change])));
        const want = hits[kind];
        if (want === undefined) expect(got, kind).toBeUndefined();
        else expect(got, kind).toMatch(want);
      }
      // Of another table, nothing that names one by id meets what was read of table 5.
      const elsewhere = change.replace(/:5$/, ':6');
      if (elsewhere !== change) for (const kind of ['files', 'definition', 'listing'] as const) expect(read(changedRead(reads[kind](), footprintOf([elsewhere]))), kind).toBeUndefined();
    });
  }

  it('a read set is empty until something is read', () => {
    expect(new ReadSet().empty).toBe(true);
    for (const kind of Object.keys(reads) as Read[]) expect(reads[kind]().empty, kind).toBe(false);
  });
});
