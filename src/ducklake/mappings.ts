// A DuckLake data file whose columns carry no field ids is read through its name mapping
// (ducklake_column_mapping with its ducklake_name_mapping rows). The import keeps a mapping only where it says
// what the file's own column names say: the mapping Strata records for such a file when it is registered
// (src/sql/file-columns.ts), computed from the file at the table's columns when the file began. So the file
// reads as DuckLake reads it and as Strata reads a file registered by name; a mapping that says otherwise is
// refused, naming the file.
import type { CatalogId } from '../../keys/ids.js';
import type { NameMapping, NameMappingColumn } from '../../keys/name-mappings.js';
import { StrataError } from '../errors.js';
import { type FileColumn, nameMappingOf } from '../sql/file-columns.js';
import type { Lake, LakeDataFile, LakeMapping } from './lake.js';
import { tableAt } from './written-files.js';

const refuse = (f: LakeDataFile, problem: string) => new StrataError('INVALID_ARGUMENT', `data file ${f.id} (ducklake_data_file) ${problem}`);

/** A mapping's rows as what they say: each field's path of source names, and the column id it is read as. */
function meaning(columns: readonly Pick<NameMappingColumn, 'columnId' | 'sourceName' | 'targetFieldId' | 'parentColumn'>[]): string[] {
  const byId = new Map(columns.map((c) => [c.columnId, c]));
  const pathOf = (c: (typeof columns)[number], seen = new Set<number>()): string => {
    if (c.parentColumn === null) return JSON.stringify(c.sourceName);
    const parent = byId.get(c.parentColumn);
    if (parent === undefined || seen.has(c.columnId)) return `?${c.parentColumn}/${JSON.stringify(c.sourceName)}`;
    seen.add(c.columnId);
    return `${pathOf(parent, seen)}/${JSON.stringify(c.sourceName)}`;
  };
  return columns.map((c) => `${pathOf(c)} → ${c.targetFieldId}`).sort();
}

/** The name mapping the import records with data file `f` (at `rel`, whose columns `found` are), or a refusal. */
export function mappingOf(lake: Lake, f: LakeDataFile, rel: string, found: readonly FileColumn[] | undefined): NameMapping {
  const id = f.mappingId!;
  const m: LakeMapping | undefined = lake.mappings.get(id);
  if (m === undefined) throw refuse(f, `names name mapping ${id}, which ducklake_column_mapping does not hold`);
  if (m.tableId !== f.tableId) throw refuse(f, `of table ${f.tableId} names name mapping ${id}, which is table ${m.tableId}'s`);
  if (m.type !== 'map_by_name') throw refuse(f, `names name mapping ${id} of type ${JSON.stringify(m.type)}; Strata reads map_by_name mappings`);
  if (m.columns.some((c) => c.isPartition)) throw refuse(f, `is read through name mapping ${id}, which takes values from its path's hive partitions; Strata reads a file's values from the file`);
  if (found === undefined) throw refuse(f, 'is read through a name mapping, but its columns were not read');
  const { info } = tableAt(lake, { name: `data file ${f.id}`, tableId: f.tableId }, f.begin);
  const ours = nameMappingOf(`table ${f.tableId}`, info.columns, rel, found);
  if (ours === undefined) throw refuse(f, `carries field ids on its columns, yet names name mapping ${id}: DuckLake would read it by names, Strata by ids`);
  const [theirs, own] = [meaning(m.columns), meaning(ours)];
  if (theirs.join('\n') !== own.join('\n')) {
    throw refuse(f, `is read through name mapping ${id} (${theirs.join(', ')}), which is not what its columns' names say (${own.join(', ')}); Strata reads a file without field ids by its column names`);
  }
  return { mappingId: id as CatalogId, type: 'map_by_name', columns: ours };
}
