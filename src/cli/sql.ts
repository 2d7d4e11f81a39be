// `strata sql` and `strata load`: a statement's rows as an aligned table (with the row count and the time
// it took), as JSON or as CSV; a file loaded into a table.
import { SingleBar } from 'cli-progress';
import type { Catalog } from '../catalog/catalog.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import type { SqlResult } from '../sql/query.js';
import { table } from './format.js';

export type SqlFormat = 'table' | 'json' | 'csv';

/** A value as text: bigints in full, times in ISO-8601, NULL as empty in CSV and as NULL in a table. */
function text(v: unknown, nullAs: string): string {
  if (v === null || v === undefined) return nullAs;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
  if (typeof v === 'object') return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
  return String(v);
}

const csvField = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

export function renderResult(r: SqlResult, format: SqlFormat, ms: number): string {
  const names = r.columns.map((c) => c.name);
  if (format === 'json') {
    // Integers past 2^53 stay exact as strings; the rest as JSON numbers.
    return JSON.stringify(r.rows, (_k, x) => (typeof x === 'bigint' ? (Number.isSafeInteger(Number(x)) ? Number(x) : x.toString()) : x), 2);
  }
  if (format === 'csv') return [names.map(csvField).join(','), ...r.rows.map((row) => names.map((n) => csvField(text(row[n], ''))).join(','))].join('\n');
  const at = r.snapshot === null ? '' : `, snapshot ${r.snapshot}`;
  return `${table(names, r.rows.map((row) => names.map((n) => text(row[n], 'NULL'))))}\n(${r.rows.length} row${r.rows.length === 1 ? '' : 's'}${at}, ${ms.toFixed(0)} ms)`;
}

/** A progress bar on the terminal for work that runs longer than a second (none for quick statements). */
function progressBar(what: string, show: boolean): { onProgress?: (p: number) => void; stop: () => void } {
  if (!show) return { stop: () => undefined };
  const started = performance.now();
  let bar: SingleBar | undefined;
  return {
    onProgress: (p) => {
      if (bar === undefined && performance.now() - started < 1000) return;
      if (bar === undefined) {
        bar = new SingleBar({ format: `${what} [{bar}] {value}%`, clearOnComplete: true });
        bar.start(100, 0);
      }
      bar.update(Math.round(p));
    },
    stop: () => bar?.stop(),
  };
}

export async function sql(c: Catalog, statement: string, at: SnapshotSelector | undefined, format: SqlFormat, progress: boolean): Promise<string> {
  const started = performance.now();
  const bar = progressBar('query', progress);
  try {
    const r = await c.sql(statement, { ...(at === undefined ? {} : { at }), ...(bar.onProgress ? { onProgress: bar.onProgress } : {}) });
    return renderResult(r, format, performance.now() - started);
  } finally {
    bar.stop();
  }
}

export async function load(c: Catalog, schema: string, name: string, file: string, progress: boolean): Promise<string> {
  const bar = progressBar(`load ${file}`, progress);
  const r = await c.load(schema, name, file, bar.onProgress ? { onProgress: bar.onProgress } : undefined).finally(() => bar.stop());
  return r.snapshot === null
    ? `${file} holds no rows; nothing committed`
    : `loaded ${r.rows} rows into ${schema}.${name} as snapshot ${r.snapshot} (${r.files.map((f) => f.path).join(', ')})`;
}
