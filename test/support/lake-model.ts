// A lake kept as plain DuckDB tables: the model differential tests hold Strata to. It knows nothing of
// Strata's code — no files, no delete files, no row ids — only what each table held after each commit.
// Every statement runs on the model as it runs on the lake, with columns named by a model id (`c7`) instead of
// their names, so renames cost nothing and a dropped-then-added name is another column. After each commit the
// tables it changed are copied; a snapshot's state is its copies.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

export interface ModelColumn {
  /** The model's id of the column: its DuckDB name is `c<mid>`. */
  mid: number;
  /** Its name in the lake. */
  name: string;
  /** Its DuckDB type. */
  type: string;
  /** Its default as SQL text, or null. */
  default: string | null;
}

/** One table as it stood after a commit: its identity (one per CREATE), name, columns and its rows' copy. */
export interface ModelTable {
  identity: number;
  name: string;
  columns: ModelColumn[];
  /** The DuckDB table holding its rows then. */
  copy: string;
}

/** A snapshot's tables, by identity. */
export type ModelState = ReadonlyMap<number, ModelTable>;

export const col = (c: ModelColumn) => `c${c.mid}`;

export class LakeModel {
  /** The tables now, by identity: the live table of identity i is `live_<i>`. */
  readonly live = new Map<number, { name: string; columns: ModelColumn[] }>();
  /** Each snapshot committed, and its state. */
  readonly snapshots = new Map<number, ModelState>();
  private nextIdentity = 1;
  private nextMid = 1;
  private copies = 0;

  private constructor(
    private readonly db: DuckDBInstance,
    readonly c: DuckDBConnection,
  ) {}

  static async open(): Promise<LakeModel> {
    const db = await DuckDBInstance.create(':memory:');
    return new LakeModel(db, await db.connect());
  }

  close(): void {
    this.c.closeSync();
    this.db.closeSync();
  }

  async run(sql: string): Promise<void> {
    await this.c.run(sql);
  }

  /** Rows as text (DuckDB's own VARCHAR casts), each row one array. */
  async text(sql: string): Promise<(string | null)[][]> {
    return (await this.c.runAndReadAll(sql)).getRows().map((r) => r.map((v) => (v === null ? null : String(v))));
  }

  identityNamed(name: string): number | undefined {
    for (const [i, t] of this.live) if (t.name === name) return i;
    return undefined;
  }

  newColumn(name: string, type: string, dflt: string | null = null): ModelColumn {
    return { mid: this.nextMid++, name, type, default: dflt };
  }

  async createTable(name: string, columns: ModelColumn[]): Promise<number> {
    const identity = this.nextIdentity++;
    await this.run(`CREATE TABLE live_${identity} (${columns.map((c) => `${col(c)} ${c.type}${c.default === null ? '' : ` DEFAULT ${c.default}`}`).join(', ')})`);
    this.live.set(identity, { name, columns });
    return identity;
  }

  async dropTable(identity: number): Promise<void> {
    await this.run(`DROP TABLE live_${identity}`);
    this.live.delete(identity);
  }

  /** Makes table `identity` what it was in `state` (its rows and columns), under its current name or `name`. */
  async restore(identity: number, from: ModelTable, name = this.live.get(identity)?.name ?? from.name): Promise<void> {
    await this.run(`CREATE OR REPLACE TABLE live_${identity} AS SELECT * FROM ${from.copy}`);
    this.live.set(identity, { name, columns: from.columns.map((c) => ({ ...c })) });
  }

  /** Records snapshot `s`: the tables in `changed` (every live one if undefined) copied, the rest as at `previous`. */
  async record(s: number, previous: number | undefined, changed?: ReadonlySet<number>): Promise<void> {
    const before = previous === undefined ? new Map<number, ModelTable>() : this.snapshots.get(previous)!;
    const state = new Map<number, ModelTable>();
    for (const [identity, t] of this.live) {
      const old = before.get(identity);
      if (old !== undefined && changed !== undefined && !changed.has(identity)) {
        state.set(identity, { ...old, name: t.name, columns: t.columns.map((c) => ({ ...c })) });
        continue;
      }
      const copy = `copy_${this.copies++}`;
      await this.run(`CREATE TABLE ${copy} AS SELECT * FROM live_${identity}`);
      state.set(identity, { identity, name: t.name, columns: t.columns.map((c) => ({ ...c })), copy });
    }
    this.snapshots.set(s, state);
  }

  /** The table named `name` in snapshot `s`. */
  tableAt(s: number, name: string): ModelTable | undefined {
    for (const t of this.snapshots.get(s)?.values() ?? []) if (t.name === name) return t;
    return undefined;
  }
}
