// What a transaction sees so far — its base snapshot with its own changes on top — read the way a Reader
// reads a snapshot: schemas, tables and views by name, a table's columns, data files, delete files and their
// statistics. An engine running several statements in one transaction (SQL's tx.sql) reads here, so each
// statement sees what the ones before it did. Every read waits for the operations already issued.
import type { ColumnStats } from '../../keys/file-column-stats.js';
import type { NameMapping } from '../../keys/name-mappings.js';
import type { CatalogId, FileId, SnapshotId } from '../../keys/ids.js';
import * as q from '../read/catalog-queries.js';
import { dataFileInfo, deleteFileInfo } from '../read/file-listing.js';
import { columnTree, viewInfo } from '../read/reader.js';
import type { ReadState } from '../read/read-state.js';
import type { DataFileInfo, DeleteFileInfo, SchemaInfo, TableInfo, TableSummary, ViewInfo } from '../read/records.js';
import { type Change, classify } from './change.js';
import type { PendingCatalog, ResolvedTable } from './pending.js';

export class PendingReads implements ReadState {
  constructor(
    private readonly p: PendingCatalog,
    /** Resolves once the operations issued so far have run. */
    private readonly settled: () => Promise<void>,
    private readonly schemaVersion: number,
  ) {}

  /**
   * The base snapshot's id, and a schema version: the base's while the transaction changed no schema,
   * table, view or column, else null (a state no committed snapshot has).
   */
  get snapshot(): { id: SnapshotId; schemaVersion: number | null } {
    const changes = (m: ReadonlyMap<unknown, Change<unknown>>) => [...m.values()].some((c) => classify(c) !== 'none');
    const ddl = changes(this.p.schemas) || changes(this.p.tables) || changes(this.p.views) || [...this.p.columns.values()].some((cols) => changes(cols.changes));
    return { id: this.p.base, schemaVersion: ddl ? null : this.schemaVersion };
  }

  async schemas(): Promise<SchemaInfo[]> {
    await this.settled();
    this.p.reads.schemasListed = true;
    const out: SchemaInfo[] = [];
    for await (const v of q.schemasAt(this.p.view, this.p.base)) {
      const next = (await this.p.loadSchema(v.id)).next;
      if (next) out.push({ id: v.id, name: next.name });
    }
    for (const [id, c] of this.p.schemas) if (c.base === undefined && c.next) out.push({ id, name: c.next.name });
    return out.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async tables(schema: string): Promise<TableSummary[]> {
    return (await this.relations(schema, 'table')).map(({ id, name }) => ({ id, name }));
  }

  async views(schema: string): Promise<ViewInfo[]> {
    const out: ViewInfo[] = [];
    for (const { id } of await this.relations(schema, 'view')) out.push(viewInfo(id, (await this.p.loadView(id)).next!));
    return out;
  }

  async viewNamed(schema: string, name: string): Promise<ViewInfo | undefined> {
    await this.settled();
    this.p.reads.lookedUp(schema, name);
    const rel = await this.p.relation(await this.readSchema(schema), name);
    if (rel !== undefined) this.p.reads.lookedUp(schema, name, { id: rel.id, files: false });
    if (rel?.kind !== 'view') return undefined;
    return viewInfo(rel.id, (await this.p.loadView(rel.id)).next!);
  }

  async table(schema: string, name: string): Promise<TableInfo> {
    await this.settled();
    const t = await this.readTable(schema, name, false);
    const row = t.change.next!;
    const cols = await this.p.loadColumns(t.id);
    const live = [...cols.changes].filter(([, c]) => c.next !== null).map(([id, c]) => ({ id, row: c.next! }));
    return { id: t.id, name: row.name, schemaId: row.schemaId, uuid: row.uuid, beginSnapshot: t.change.base?.begin ?? this.p.base, columns: columnTree(live) };
  }

  async dataFiles(schema: string, table: string): Promise<DataFileInfo[]> {
    await this.settled();
    const t = await this.readTable(schema, table, true);
    await this.p.loadDataFiles(t.id);
    const out: DataFileInfo[] = [];
    for (const [id, c] of this.p.dataFiles) {
      if (c.tableId === t.id && c.next !== null) out.push(dataFileInfo(id, c.base?.begin ?? this.p.base, { ...c.next, end: null }, this.p.base));
    }
    return out.sort((a, b) => a.id - b.id);
  }

  async deleteFiles(schema: string, table: string): Promise<DeleteFileInfo[]> {
    await this.settled();
    const t = await this.readTable(schema, table, true);
    await this.p.loadDeleteFiles(t.id);
    const out: DeleteFileInfo[] = [];
    for (const [id, c] of this.p.deleteFiles) {
      if (c.tableId === t.id && c.next !== null && !c.endsAtCommit) out.push(deleteFileInfo(id, c.base?.begin ?? this.p.base, { ...c.next, end: null }, this.p.base));
    }
    return out.sort((a, b) => a.id - b.id);
  }

  /** Statistics of files registered by this transaction as it was given them, of the others as committed. */
  async columnStats(schema: string, table: string, files: readonly DataFileInfo[]): Promise<Map<FileId, ColumnStats[]>> {
    await this.settled();
    const t = await this.readTable(schema, table, true);
    const committed = files.filter((f) => this.p.dataFiles.get(f.id)?.base !== undefined);
    const out = await q.fileColumnStats(this.p.view, t.id, committed.map((f) => ({ id: f.id, begin: f.beginSnapshot })));
    for (const f of files) {
      const pending = this.p.fileStats.get(f.id);
      if (pending !== undefined) out.set(f.id, pending);
    }
    return out;
  }

  /** Mappings of files registered by this transaction as it made them, of the others as committed. */
  async nameMappings(schema: string, table: string, files: readonly DataFileInfo[]): Promise<Map<FileId, NameMapping>> {
    await this.settled();
    const t = await this.readTable(schema, table, true);
    const committed = files.filter((f) => this.p.dataFiles.get(f.id)?.base !== undefined);
    const out = await q.nameMappings(this.p.view, t.id, committed.map((f) => ({ id: f.id, begin: f.beginSnapshot, mappingId: f.mappingId })));
    for (const f of files) {
      const pending = this.p.fileMappings.get(f.id);
      if (pending !== undefined) out.set(f.id, pending);
    }
    return out;
  }

  /** Nothing to release: the transaction's own view is. */
  async close(): Promise<void> {}

  /** Table `name` of `schema`, its lookup (and with `files`, the reading of its files) recorded as read. */
  private async readTable(schema: string, name: string, files: boolean): Promise<ResolvedTable> {
    this.p.reads.lookedUp(schema, name);
    await this.readSchema(schema);
    const t = await this.p.requireTable(schema, name);
    this.p.reads.lookedUp(schema, name, { id: t.id, files });
    return t;
  }

  /** Schema `name`'s id, its lookup (found or not) recorded as read. */
  private async readSchema(name: string): Promise<CatalogId> {
    this.p.reads.lookedUpSchema(name);
    const id = await this.p.requireSchema(name);
    this.p.reads.lookedUpSchema(name, id);
    return id;
  }

  private async relations(schema: string, kind: 'table' | 'view'): Promise<{ id: CatalogId; name: string }[]> {
    await this.settled();
    this.p.reads.listed(schema, []);
    const rels = await this.p.relations(await this.readSchema(schema));
    const found = [...rels].filter(([, r]) => r.kind === kind).map(([name, r]) => ({ id: r.id, name }));
    this.p.reads.listed(schema, found);
    return found;
  }
}
