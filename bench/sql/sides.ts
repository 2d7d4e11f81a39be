// The two ways of asking one question: catalog.sql on a freshly opened catalog, and DuckDB over the files
// directly on a fresh in-memory instance. Each side is timed from its first query after opening (the
// catalog's first sql() creates its DuckDB instance, so the direct side's first query creates one too),
// then warm, query after query on the same open catalog or instance.
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { Catalog } from '../../src/index.js';
import { OPEN } from './build.js';

export interface Side {
  readonly label: string;
  /** Data files the last query's references listed and skipped by their statistics (catalog.sql's own count). */
  files?: { listed: number; skipped: number };
  open(): Promise<void>;
  /** Query i's rows, as text (bigints spelt out) so that both sides' answers compare. */
  ask(i: number): Promise<string>;
  close(): Promise<void>;
}

const answer = (rows: readonly unknown[]) => JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

export const CATALOG = 'catalog.sql';

export function catalogSide(dir: string, text: (i: number) => string): Side {
  let catalog: Catalog | undefined;
  const side: Side = {
    label: CATALOG,
    open: async () => {
      catalog = await Catalog.open({ dir, ...OPEN });
    },
    ask: async (i) => {
      const r = await catalog!.sql(text(i));
      side.files = r.files;
      return answer(r.rows.map((row) => Object.values(row)));
    },
    close: async () => {
      await catalog?.close();
      catalog = undefined;
    },
  };
  return side;
}

/** One instance and one connection for all its queries: what DuckDB alone pays, nothing per statement. */
export function directSide(label: string, text: (i: number) => string): Side {
  let db: DuckDBInstance | undefined;
  let c: DuckDBConnection | undefined;
  return {
    label,
    open: async () => undefined,
    ask: async (i) => {
      db ??= await DuckDBInstance.create(':memory:');
      c ??= await db.connect();
      return answer((await c.runAndReadAll(text(i))).getRows());
    },
    close: async () => {
      c?.closeSync();
      db?.closeSync();
      [c, db] = [undefined, undefined];
    },
  };
}

export interface Timing {
  firstNs: number;
  /** Queries 1..n, one at a time. */
  warmNs: number[];
  answers: string[];
}

export async function timeSide(side: Side, warm: number): Promise<Timing> {
  await side.open();
  try {
    const answers: string[] = [];
    const ns: number[] = [];
    for (let i = 0; i <= warm; i++) {
      const t = process.hrtime.bigint();
      answers.push(await side.ask(i));
      ns.push(Number(process.hrtime.bigint() - t));
    }
    return { firstNs: ns[0]!, warmNs: ns.slice(1), answers };
  } finally {
    await side.close();
  }
}
