// Small families, each read back as written: options, reclamation schedules (with and without the entry that
// scheduled them), the space registry's refusal of an unknown space, and what excising one ended version
// takes with it, by its space.
import { describe, expect, it } from 'vitest';
import { columnEntity } from '../../keys/columns.js';
import { dataFileEntity } from '../../keys/data-files.js';
import { endIndexKey } from '../../keys/end-index.js';
import { excise, readEnded } from '../../keys/excision.js';
import { catalogId, columnId, fileId, kvSeq } from '../../keys/ids.js';
import { decodeKey, encodeKey, keyToString } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { DATA_PATH_OPTION, decodeOption, putOption } from '../../keys/options.js';
import { relationIdOf, relationNameEntity, relationNameOf, tableEntity, viewEntity } from '../../keys/relations.js';
import { decodeScheduled, schedule, scheduleKey } from '../../keys/retention.js';
import { schemaEntity } from '../../keys/schemas.js';
import { Space, spaceSpec } from '../../keys/spaces.js';
import { encodeValue } from '../../keys/value-codec.js';

const put = (m: Mutation): [Uint8Array, Uint8Array] => {
  if (m.type !== 'put') throw new Error('not a put');
  return [m.key, m.value];
};
const shown = (ms: Mutation[]) => ms.map((m) => `${m.type} ${keyToString(m.key)}`);

describe('rows read back as written', () => {
  it('an option: its name from the key, its value from the row', () => {
    expect(decodeOption(...put(putOption(DATA_PATH_OPTION, 's3://b/lake/')))).toEqual({ name: 'data_path', value: 's3://b/lake/' });
  });

  it("a relation's id from its version's key, and its name from its name index key", () => {
    expect(relationIdOf(decodeKey(tableEntity(catalogId(5)).key(2)).fields)).toBe(5);
    expect(relationIdOf(decodeKey(viewEntity(catalogId(6)).key(2)).fields)).toBe(6);
    expect(relationNameOf(decodeKey(relationNameEntity(catalogId(3), 'orders').key(2)).fields)).toBe('orders');
  });

  it('a reclamation schedule, with the log entry that scheduled it, or without one (older schedules)', () => {
    expect(decodeScheduled(...put(schedule('t/1.parquet', 500, kvSeq(42))))).toEqual({ path: 't/1.parquet', scheduledAt: 500, seq: 42 });
    expect(decodeScheduled(scheduleKey('t/1.parquet'), encodeValue({ scheduledAt: 500 }))).toEqual({ path: 't/1.parquet', scheduledAt: 500, seq: undefined });
    expect(decodeScheduled(scheduleKey('t/1.parquet'), encodeValue({ scheduledAt: 500, seq: 0 }))).toEqual({ path: 't/1.parquet', scheduledAt: 500, seq: 0 });
  });

  it('a space byte no space has is refused, naming it in hex', () => {
    expect(() => spaceSpec(0x99 as Space)).toThrow(new RangeError('unknown key space 0x99'));
    expect(spaceSpec(Space.Table).name).toBe('Table');
  });
});

describe('excising an ended version', () => {
  const endedAt = (key: Uint8Array, end: number, note: object = {}) => readEnded(endIndexKey(end, key), encodeValue(note));

  it('a view, a schema, a table: the row and its end-index entry; a table also names itself', () => {
    for (const [key, table] of [
      [viewEntity(catalogId(5)).key(2), undefined],
      [schemaEntity(catalogId(5)).key(2), undefined],
      [tableEntity(catalogId(5)).key(2), 5],
    ] as const) {
      const out = excise(endedAt(key, 4));
      expect(shown(out.mutations)).toEqual([`del ${keyToString(endIndexKey(4, key))}`, `del ${keyToString(key)}`]);
      expect(out).toStrictEqual({ mutations: out.mutations, ...(table === undefined ? {} : { table }) });
    }
  });

  it('a column: its table and id, which the column id floor must stay past', () => {
    const key = columnEntity(catalogId(5), columnId(3)).key(2);
    const out = excise(endedAt(key, 4));
    expect(out).toStrictEqual({ mutations: out.mutations, column: { table: 5, id: 3 } });
  });

  it('a data file: its path, its manifest and the entries that follow its row', () => {
    const key = dataFileEntity(catalogId(5), fileId(8)).key(2);
    const out = excise(endedAt(key, 4, { path: 't/8.parquet' }));
    expect(out.file).toEqual({ path: 't/8.parquet', id: 8 });
    expect(keyToString(out.manifest!)).toBe('DataFileManifest[5,@2]');
    expect(out.column).toBeUndefined();
    expect(shown(out.mutations)).toEqual([
      `del ${keyToString(endIndexKey(4, key))}`,
      'del DataFile[5,8,@2]',
      'del FileTableIndex[8,@2]',
      'del DataFileEndIndex[5,8]',
      'del DataFileEndedAt[5,4,8]',
      'del FileColumnStats[5,8,@2]',
      'del NameMapping[5,8,@2]',
    ]);
    expect(encodeKey(Space.DataFile, [5, 8], 2)).toEqual(key);
  });
});
