// The rule of which Iceberg objects GC may delete (gc/protection.ts), case by case: only this location's, only
// past the grace, never what a retained plan names or a table kept whole, never a name Strata does not write;
// metadata files by the snapshot and the horizon in their names.
import { describe, expect, it } from 'vitest';
import { type IcebergKeep, isIcebergObjectLetGo } from '../../gc/protection.js';

const HOUR = 3600_000;
const now = 100 * HOUR;
const old = now - 3 * HOUR;
const at = 'iceberg/abc/';
const keep: IcebergKeep = {
  location: at,
  named: new Set([`${at}u1/manifests/data-3-0-aa`, `${at}u1/lists/snap-9-bb`, `${at}u1/deletes/4`]),
  keepTables: new Set([`${at}u2/`]),
  horizon: 8,
  protected: [5],
};
const goes = (key: string, modified = old) => isIcebergObjectLetGo(key, modified, keep, now, HOUR);

describe('which Iceberg objects GC may delete', () => {
  it('keeps what a retained plan names, and lets go what none names once past the grace', () => {
    expect(goes(`${at}u1/manifests/data-3-0-aa.0123abcd.avro`)).toBe(false);
    expect(goes(`${at}u1/lists/snap-9-bb.0123abcd.avro`)).toBe(false);
    expect(goes(`${at}u1/deletes/4.0123abcd.parquet`)).toBe(false);
    expect(goes(`${at}u1/manifests/data-3-0-cc.0123abcd.avro`)).toBe(true);
    expect(goes(`${at}u1/lists/snap-2-bb.0123abcd.avro`)).toBe(true);
    expect(goes(`${at}u1/deletes/3.0123abcd.parquet`)).toBe(true);
    expect(goes(`${at}u9/manifests/data-1-0-aa.0123abcd.avro`), 'a table no retained snapshot sees').toBe(true);
    expect(goes(`${at}u1/manifests/data-3-0-aa.avro`), 'no checksum in the name: not one Strata wrote').toBe(false);
    expect(goes(`${at}u1/lists/snap-2-bb.0123abcd.avro`, now - HOUR + 1), 'within the grace').toBe(false);
    expect(goes(`${at}u1/lists/snap-2-bb.0123abcd.avro`, now - HOUR), 'exactly at the grace').toBe(true);
  });

  it('never touches another location, a table kept whole, or a name Strata does not write', () => {
    expect(goes('iceberg/def/u1/manifests/data-3-0-cc.0123abcd.avro')).toBe(false);
    expect(goes(`${at}u2/manifests/data-3-0-cc.0123abcd.avro`)).toBe(false);
    expect(goes(`${at}u1/notes/readme.txt`)).toBe(false);
    expect(goes(`${at}u1/manifests/sub/data.0123abcd.avro`)).toBe(false);
    expect(goes(`${at}u1/metadata/v1.metadata.json`)).toBe(false);
    expect(goes('data/u1/manifests/x.avro')).toBe(false);
  });

  it('keeps metadata files of retained or protected snapshots made under this horizon, and no others', () => {
    expect(goes(`${at}u1/metadata/9-8-0123abcd.metadata.json`)).toBe(false);
    expect(goes(`${at}u1/metadata/8-8-0123abcd.metadata.json`)).toBe(false);
    expect(goes(`${at}u1/metadata/5-8-0123abcd.metadata.json`), 'a tagged snapshot below the horizon').toBe(false);
    expect(goes(`${at}u1/metadata/6-8-0123abcd.metadata.json`), 'an excised snapshot').toBe(true);
    expect(goes(`${at}u1/metadata/9-7-0123abcd.metadata.json`), 'made under an older horizon').toBe(true);
    expect(goes(`${at}u1/metadata/9-8-0123abcd.metadata.json`, now), 'just made').toBe(false);
  });
});
