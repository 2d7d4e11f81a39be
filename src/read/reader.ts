// A reader is one catalog snapshot seen through one read view: every table it touches is read at the same
// snapshot (statement-wide consistency), and commits made after it opened never show, because the view's
// bytes are frozen. `reader.snapshot` never moves.
import { type CatalogId, catalogId, type ColumnId, type FileId, type SnapshotId } from '../../keys/ids.js';
import { nestedType } from '../../keys/column-types.js';
import type { ColumnRow } from '../../keys/columns.js';
import type { ViewRow } from '../../keys/relations.js';
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { NameMapping } from '../../keys/name-mappings.js';
import { checkCount, shown } from '../arguments.js';
import { StrataError } from '../errors.js';
import { listed, quote } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from './catalog-queries.js';
import { dataFileInfo, dataFilesAt, deleteFileInfo, deleteFilesAt } from './file-listing.js';
import type {
  CatalogTotals,
  ColumnInfo,
  DataFileInfo,
  DeleteFileInfo,
  SchemaInfo,
  SnapshotInfo,
  TableInfo,
  TableSummary,
  TableTotals,
  ViewInfo,
} from './records.js';
import { catalogTotalsAt, tableTotalsAt } from './table-totals.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A reader's durable pin (see gc/leases.ts), kept and released by the catalog that wrote it. */
export interface LeaseHandle {
  readonly id: string;
  readonly holder: string;
  expiresAt: Date;
  renew(ttlMs: number): Promise<Date>;
  release(): Promise<void>;
}

export class Reader {
  private closed = false;
  /**
   * Each schema's tables and views, listed once: the snapshot never changes under a reader, and binding one
   * statement lists a schema's relations several times (a one-row INSERT into a schema of 1,000 tables: five).
   */
  private readonly listed = new Map<CatalogId, Promise<{ kind: 'table' | 'view'; id: CatalogId; name: string }[]>>();

  constructor(
    private readonly view: ReadView,
    readonly snapshot: SnapshotInfo,
    private readonly onClose: (r: Reader) => void,
    private readonly pin?: LeaseHandle,
  ) {}

  /** The lease this reader holds (opened with { lease }), or undefined. */
  get lease(): { id: string; holder: string; expiresAt: Date } | undefined {
    return this.pin && { id: this.pin.id, holder: this.pin.holder, expiresAt: this.pin.expiresAt };
  }

  /** Extends the reader's lease to ttlMs from now (catalog clock); returns the new expiry. */
  async renew(ttlMs: number): Promise<Date> {
    this.assertOpen();
    if (!this.pin) throw new StrataError('INVALID_ARGUMENT', 'this reader holds no lease; open it with { lease: { ttlMs } } to renew one');
    return this.pin.renew(ttlMs);
  }

  private get at(): SnapshotId {
    return this.snapshot.id;
  }

  async schemas(): Promise<SchemaInfo[]> {
    this.assertOpen();
    const out: SchemaInfo[] = [];
    for await (const s of q.schemasAt(this.view, this.at)) out.push({ id: s.id, name: s.row.name });
    return out.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async tables(schema: string): Promise<TableSummary[]> {
    return (await this.relations(schema, 'table')).map(({ id, name }) => ({ id, name }));
  }

  async views(schema: string): Promise<ViewInfo[]> {
    const out: ViewInfo[] = [];
    for (const { id } of await this.relations(schema, 'view')) {
      out.push(viewInfo(id, (await q.viewAt(this.view, this.at, id))!.row));
    }
    return out;
  }

  async table(schema: string, name: string): Promise<TableInfo> {
    const { id } = await this.requireTable(schema, name);
    const t = (await q.tableAt(this.view, this.at, id))!;
    const columns = await q.columnsOf(this.view, id, this.at);
    return {
      id,
      name: t.row.name,
      schemaId: t.row.schemaId,
      uuid: t.row.uuid,
      beginSnapshot: t.begin,
      columns: columnTree(columns, null),
    };
  }

  /** The table's live data and delete files, their bytes and its rows at this reader's snapshot, without listing them at the newest. */
  async tableTotals(schema: string, table: string): Promise<TableTotals> {
    const { id } = await this.requireTable(schema, table);
    return tableTotalsAt(this.view, this.at, id);
  }

  /** How many schemas, tables and views are live at this reader's snapshot, and their tables' totals added up. */
  totals(): Promise<CatalogTotals> {
    this.assertOpen();
    return catalogTotalsAt(this.view, this.at);
  }

  /**
   * What each of `ids` named at this reader's snapshot: a schema by its name, a table or a view as
   * `schema.name`; an id that named nothing live then is left out. One lookup per id, whatever the catalog
   * holds: for the ids DuckLake's `changes_made` names tables by (`inserted_into_table:12`).
   */
  async namesOf(ids: readonly number[]): Promise<Map<number, string>> {
    this.assertOpen();
    if (!Array.isArray(ids)) throw new StrataError('INVALID_ARGUMENT', `namesOf() takes an array of catalog ids, got ${shown(ids)}`);
    // Array.from visits the holes of a sparse array, which map() passes over unchecked.
    const wanted = new Set(Array.from(ids, (id, i) => catalogId(checkCount(`namesOf() ids[${i}]`, id))));
    const schemaName = async (id: CatalogId) => (await q.schemaAt(this.view, this.at, id))?.row.name;
    const out = new Map<number, string>();
    for (const id of wanted) {
      const relation = (await q.tableAt(this.view, this.at, id)) ?? (await q.viewAt(this.view, this.at, id));
      const schema = await schemaName(relation === undefined ? id : relation.row.schemaId);
      // A relation whose schema is not live has no name here (an index only damage could leave so).
      if (schema !== undefined) out.set(id, relation === undefined ? schema : `${schema}.${relation.row.name}`);
    }
    return out;
  }

  /** The table's data files at this reader's snapshot, streamed: memory stays flat however many there are. */
  async *iterateDataFiles(schema: string, table: string): AsyncGenerator<DataFileInfo> {
    for await (const batch of this.dataFileBatches(schema, table)) yield* batch;
  }

  async dataFiles(schema: string, table: string): Promise<DataFileInfo[]> {
    return (await collect(this.dataFileBatches(schema, table))).flat();
  }

  async *iterateDeleteFiles(schema: string, table: string): AsyncGenerator<DeleteFileInfo> {
    for await (const batch of this.deleteFileBatches(schema, table)) yield* batch;
  }

  async deleteFiles(schema: string, table: string): Promise<DeleteFileInfo[]> {
    return (await collect(this.deleteFileBatches(schema, table))).flat();
  }

  /**
   * The table's data files at this reader's snapshot in the batches the index reads them in (up to a few
   * hundred): one async step per batch instead of one per file, for engines that plan over many files.
   */
  async *dataFileBatches(schema: string, table: string): AsyncGenerator<DataFileInfo[]> {
    const { id } = await this.requireTable(schema, table);
    for await (const batch of dataFilesAt(this.view, this.at, id)) {
      yield batch.map((f) => dataFileInfo(f.id, f.begin, f.row, this.at));
    }
  }

  /**
   * The column statistics of the given data files of the table (as dataFiles lists them), by file id: what a
   * planner skips files by. A file registered without statistics is absent from the map.
   */
  async columnStats(schema: string, table: string, files: readonly DataFileInfo[]): Promise<Map<FileId, ColumnStats[]>> {
    const { id } = await this.requireTable(schema, table);
    return q.fileColumnStats(this.view, id, files.map((f) => ({ id: f.id, begin: f.beginSnapshot })));
  }

  /** The name mappings of those of the given data files that have one, by file id: how each is read by name. */
  async nameMappings(schema: string, table: string, files: readonly DataFileInfo[]): Promise<Map<FileId, NameMapping>> {
    const { id } = await this.requireTable(schema, table);
    return q.nameMappings(this.view, id, files.map((f) => ({ id: f.id, begin: f.beginSnapshot, mappingId: f.mappingId })));
  }

  /** The delete files, in batches, as dataFileBatches. */
  async *deleteFileBatches(schema: string, table: string): AsyncGenerator<DeleteFileInfo[]> {
    const { id } = await this.requireTable(schema, table);
    for await (const batch of deleteFilesAt(this.view, this.at, id)) {
      yield batch.map((f) => deleteFileInfo(f.id, f.begin, f.row, this.at));
    }
  }

  /** Closes the read view and releases the lease, if any (a release that fails leaves it to expire). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.view.close();
    this.onClose(this);
    await this.pin?.release();
  }

  private assertOpen(): void {
    if (this.closed) throw new StrataError('INVALID_ARGUMENT', `reader at snapshot ${this.at} is closed; open a new reader`);
  }

  private async schemaId(schema: string): Promise<CatalogId> {
    this.assertOpen();
    const id = await q.schemaIdByName(this.view, this.at, schema);
    if (id !== undefined) return id;
    const names = (await this.schemas()).map((s) => s.name);
    throw new StrataError(
      'NOT_FOUND',
      `schema ${quote(schema)} does not exist at snapshot ${this.at}; schemas there: ${listed(names)}`,
      { snapshot: this.at },
    );
  }

  /** The view of that name at this snapshot, or undefined (a table of that name, or nothing): one lookup. */
  async viewNamed(schema: string, name: string): Promise<ViewInfo | undefined> {
    const rel = await q.relationByName(this.view, this.at, await this.schemaId(schema), name);
    if (rel?.kind !== 'view') return undefined;
    return viewInfo(rel.id, (await q.viewAt(this.view, this.at, rel.id))!.row);
  }

  private async relations(schema: string, kind: 'table' | 'view'): Promise<{ id: CatalogId; name: string }[]> {
    const schemaId = await this.schemaId(schema);
    let all = this.listed.get(schemaId);
    if (all === undefined) {
      all = (async () => {
        const out: { kind: 'table' | 'view'; id: CatalogId; name: string }[] = [];
        for await (const r of q.relationsAt(this.view, this.at, schemaId)) out.push(r);
        return out;
      })();
      this.listed.set(schemaId, all);
      all.catch(() => this.listed.delete(schemaId));
    }
    return (await all).filter((r) => r.kind === kind).map(({ id, name }) => ({ id, name }));
  }

  private async requireTable(schema: string, name: string): Promise<{ id: CatalogId }> {
    const schemaId = await this.schemaId(schema);
    const rel = await q.relationByName(this.view, this.at, schemaId, name);
    if (rel?.kind === 'table') return rel;
    const what = rel?.kind === 'view' ? `${quote(schema, name)} is a view, not a table` : `table ${quote(schema, name)} does not exist`;
    const names = (await this.relations(schema, 'table')).map((t) => t.name);
    throw new StrataError('NOT_FOUND', `${what} at snapshot ${this.at}; tables in ${quote(schema)} there: ${listed(names)}`, {
      snapshot: this.at,
    });
  }
}

/** The columns whose parent is `parent` (null: the table's own), in order, each nested one with its fields. */
export function columnTree(columns: readonly { id: ColumnId; row: Omit<ColumnRow, 'end'> }[], parent: ColumnId | null = null): ColumnInfo[] {
  return columns
    .filter((c) => c.row.parentColumn === parent)
    .sort((a, b) => a.row.order - b.row.order)
    .map((c) => {
      const info: ColumnInfo = { id: c.id, name: c.row.name, type: c.row.type, order: c.row.order, nullsAllowed: c.row.nullsAllowed, defaultValue: c.row.defaultValue };
      if (nestedType(c.row.type) !== undefined) info.children = columnTree(columns, c.id);
      return info;
    });
}

/** A view as readers give it, from its row (committed, or a transaction's pending one). */
export function viewInfo(id: CatalogId, row: Omit<ViewRow, 'end'>): ViewInfo {
  return { id, name: row.name, schemaId: row.schemaId, dialect: row.dialect, sql: row.sql, definition: row.definition ?? null };
}
