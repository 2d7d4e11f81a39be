// What a reader sees at one snapshot, as text or as JSON: the catalog's schemas and tables, or one table's
// columns and files. Used by `strata show` and by the demo.
import type { Reader } from '../read/reader.js';
import type { ColumnInfo } from '../read/records.js';
import { size, table } from './format.js';

export async function describeCatalog(r: Reader) {
  const schemas = [];
  for (const s of await r.schemas()) {
    const tables = [];
    for (const t of await r.tables(s.name)) {
      const info = await r.table(s.name, t.name);
      let files = 0;
      let rows = 0;
      for await (const f of r.iterateDataFiles(s.name, t.name)) {
        files++;
        rows += f.recordCount;
      }
      for await (const d of r.iterateDeleteFiles(s.name, t.name)) rows -= d.deleteCount;
      tables.push({ id: t.id, name: t.name, columns: info.columns.map((c) => c.name), files, rows });
    }
    schemas.push({ id: s.id, name: s.name, tables, views: (await r.views(s.name)).map((v) => v.name) });
  }
  return { snapshot: r.snapshot, schemas };
}

export async function describeTable(r: Reader, schema: string, name: string) {
  return {
    snapshot: r.snapshot,
    table: await r.table(schema, name),
    dataFiles: await r.dataFiles(schema, name),
    deleteFiles: await r.deleteFiles(schema, name),
  };
}

export function renderCatalog(d: Awaited<ReturnType<typeof describeCatalog>>): string {
  const rows = d.schemas.flatMap((s) => [
    ...s.tables.map((t) => [`${s.name}.${t.name}`, 'table', t.id, t.columns.join(', '), t.files, t.rows]),
    ...s.views.map((v) => [`${s.name}.${v}`, 'view', '', '', '', '']),
    ...(s.tables.length + s.views.length === 0 ? [[s.name, 'schema (empty)', s.id, '', '', '']] : []),
  ]);
  return `snapshot ${d.snapshot.id} (${d.snapshot.time.toISOString()})\n${table(['name', 'kind', 'id', 'columns', 'files', 'live rows'], rows)}`;
}

/** A column's type, a nested one with its fields': struct(city varchar, zip int32), list(varchar), map(varchar, float64). */
function typeText(c: ColumnInfo): string {
  if (c.children === undefined) return c.type;
  return `${c.type}(${c.children.map((f) => (c.type === 'struct' ? `${f.name} ${typeText(f)}` : typeText(f))).join(', ')})`;
}

export function renderTable(d: Awaited<ReturnType<typeof describeTable>>): string {
  const t = d.table;
  return [
    `table ${t.name} (id ${t.id}) at snapshot ${d.snapshot.id}`,
    table(['column', 'id', 'type', 'nullable'], t.columns.map((c) => [c.name, c.id, typeText(c), c.nullsAllowed ? 'yes' : 'no'])),
    '',
    table(
      ['data file', 'id', 'rows', 'size', 'since'],
      d.dataFiles.map((f) => [f.path, f.id, f.recordCount, size(f.fileSizeBytes), f.beginSnapshot]),
    ),
    ...(d.deleteFiles.length === 0
      ? []
      : ['', table(['delete file', 'id', 'of file', 'deletes', 'size', 'since'], d.deleteFiles.map((f) => [f.path, f.id, f.dataFileId, f.deleteCount, size(f.fileSizeBytes), f.beginSnapshot]))]),
  ].join('\n');
}
