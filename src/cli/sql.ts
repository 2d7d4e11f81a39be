// `strata sql`, `strata changes` and `strata load`: a result printed as DuckDB streams it, each value as DuckDB
// prints it (duck-text.ts) — an aligned table of its first rows with how many there were and the time it
// took, or every row as CSV (as DuckDB's CSV writer writes them) or as JSON — and a file loaded into a table.
import type { Catalog } from '../catalog/catalog.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import type { SqlParams } from '../sql/params.js';
import type { SqlResult, TableFiles } from '../sql/query.js';
import { type Bar, newBar } from './bar.js';
import { duckText, jsonText, type Shape, shapeOf } from './duck-text.js';
import { alignedLine, cellsOf, count, ruleLine, widthsOf } from './format.js';
import { write } from './output.js';

export type SqlFormat = 'table' | 'json' | 'csv';

export interface PrintOptions {
  format: SqlFormat;
  /** The table view shows this many rows (0: all of them, aligned on the first batch); CSV and JSON print all. */
  limit: number;
  /** When the statement started, for the time the table view reports. */
  started: number;
  /** Called once the first rows are in, before anything is printed (a progress bar goes). */
  onFirst?: () => void;
  /** Where the text goes (default: standard output, at the pace its reader takes it). */
  sink?: Sink;
}

type Sink = (text: string) => Promise<void>;

/** The columns of a result, with how each one's values print. */
interface Columns {
  names: string[];
  shapes: Shape[];
}

const columnsOf = (r: SqlResult): Columns => ({ names: r.columns.map((c) => c.name), shapes: r.columns.map((c) => shapeOf(c.type)) });

/** Prints a result as it streams, in batches: memory holds a batch (and, in the table view, the rows shown). */
export async function printResult(batches: AsyncIterable<SqlResult>, o: PrintOptions): Promise<void> {
  const sink = o.sink ?? write;
  const printer = o.format === 'csv' ? new CsvPrinter(sink) : o.format === 'json' ? new JsonPrinter(sink) : new TablePrinter(sink, o.limit, o.started);
  let last: SqlResult | undefined;
  for await (const batch of batches) {
    if (last === undefined) o.onFirst?.();
    last = batch;
    await printer.batch(batch);
  }
  if (last === undefined) o.onFirst?.();
  await printer.end(last);
}

interface Printer {
  batch(r: SqlResult): Promise<void>;
  /** After the last batch (`last`; undefined when there was none). */
  end(last: SqlResult | undefined): Promise<void>;
}

// DuckDB's CSV writer quotes a field that holds the delimiter, a quote, a line end or a '#' (which a reader may
// take for a comment), and an empty string, which would otherwise read back as NULL (written as nothing).
const csvField = (s: string) => (s === '' || /[",\n\r#]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

class CsvPrinter implements Printer {
  private columns: Columns | undefined;

  constructor(private readonly write: Sink) {}

  async batch(r: SqlResult): Promise<void> {
    let out = '';
    if (this.columns === undefined) {
      this.columns = columnsOf(r);
      if (this.columns.names.length > 0) out += `${this.columns.names.map(csvField).join(',')}\n`;
    }
    const { names, shapes } = this.columns;
    for (const row of r.rows) out += `${names.map((n, i) => (row[n] === null ? '' : csvField(duckText(row[n], shapes[i]!)))).join(',')}\n`;
    await this.write(out);
  }

  async end(): Promise<void> {}
}

class JsonPrinter implements Printer {
  private columns: Columns | undefined;
  private rows = 0;

  constructor(private readonly write: Sink) {}

  async batch(r: SqlResult): Promise<void> {
    this.columns ??= columnsOf(r);
    const { names, shapes } = this.columns;
    let out = '';
    for (const row of r.rows) {
      out += `${this.rows++ === 0 ? '[\n' : ',\n'}{${names.map((n, i) => `${JSON.stringify(n)}:${jsonText(row[n], shapes[i]!)}`).join(',')}}`;
    }
    await this.write(out);
  }

  async end(): Promise<void> {
    await this.write(this.rows === 0 ? '[]\n' : '\n]\n');
  }
}

/**
 * The first `limit` rows as an aligned table, then how many rows there were (all of them counted as they
 * stream by), the snapshot and the time. With limit 0 every row is printed as it comes, in columns as wide as
 * the first batch needs.
 */
class TablePrinter implements Printer {
  private columns: Columns | undefined;
  private widths: number[] | undefined;
  private readonly shown: string[][] = [];
  private rows = 0;

  constructor(
    private readonly write: Sink,
    private readonly limit: number,
    private readonly started: number,
  ) {}

  private cells(r: SqlResult): string[][] {
    const { names, shapes } = this.columns!;
    return r.rows.map((row) => cellsOf(names.map((n, i) => (row[n] === null ? 'NULL' : duckText(row[n], shapes[i]!)))));
  }

  async batch(r: SqlResult): Promise<void> {
    this.columns ??= columnsOf(r);
    const room = this.limit === 0 ? r.rows.length : Math.max(0, this.limit - this.rows);
    this.rows += r.rows.length;
    if (room === 0) return;
    const cells = this.cells({ ...r, rows: r.rows.slice(0, room) });
    if (this.limit !== 0) {
      for (const c of cells) this.shown.push(c);
      return;
    }
    let out = '';
    if (this.widths === undefined) {
      const header = cellsOf(this.columns.names);
      this.widths = widthsOf([header, ...cells]);
      out += this.columns.names.length === 0 ? '' : `${alignedLine(header, this.widths)}\n${ruleLine(this.widths)}\n`;
    }
    for (const c of cells) out += `${alignedLine(c, this.widths)}\n`;
    await this.write(out);
  }

  async end(last: SqlResult | undefined): Promise<void> {
    let out = '';
    if (this.limit !== 0 && this.columns !== undefined && this.columns.names.length > 0) {
      const header = cellsOf(this.columns.names);
      const widths = widthsOf([header, ...this.shown]);
      out += `${[alignedLine(header, widths), ruleLine(widths), ...this.shown.map((c) => alignedLine(c, widths))].join('\n')}\n`;
    }
    // An EXPLAIN's plan shows the files each scan reads; which were listed and skipped, per table, follows it.
    if (this.columns?.names[0] === 'explain_key') for (const t of last?.files.tables ?? []) out += `${tableFiles(t)}\n`;
    const rows = `${count(this.rows)} row${this.rows === 1 ? '' : 's'}`;
    const at = last?.snapshot == null ? '' : `, snapshot ${last.snapshot}`;
    const cut = this.limit !== 0 && this.shown.length < this.rows ? `; the first ${count(this.shown.length)} shown: --limit N shows N (0: all), --csv and --json print every row` : '';
    await this.write(`${out}(${rows}${at}, ${(performance.now() - this.started).toFixed(0)} ms${cut})\n`);
  }
}

const tableFiles = (t: TableFiles) =>
  `${t.schema}.${t.table} at snapshot ${t.snapshot}: ${count(t.listed)} data file${t.listed === 1 ? '' : 's'} listed, ${count(t.skipped)} skipped by their statistics`;

/** A whole result as the table view prints it, every row (the demo's few). */
export async function tableText(r: SqlResult, started: number): Promise<string> {
  let text = '';
  async function* once() {
    yield r;
  }
  await printResult(once(), { format: 'table', limit: 0, started, sink: async (t) => void (text += t) });
  return text.trimEnd();
}

/** A progress bar on the terminal for work that runs longer than a second (none for quick statements). */
function progressBar(what: string, show: boolean): { onProgress?: (p: number) => void; stop: () => void } {
  if (!show) return { stop: () => undefined };
  const started = performance.now();
  let bar: Bar | undefined;
  return {
    onProgress: (p) => {
      if (bar === undefined && performance.now() - started < 1000) return;
      if (bar === undefined) {
        bar = newBar(`${what} [{bar}] {value}%`);
        bar.start(100, 0);
      }
      bar.update(Math.round(p));
    },
    stop: () => bar?.stop(),
  };
}

/** The author and message of the commit a command makes, as given on the command line. */
export interface Authorship {
  author?: string;
  message?: string;
}

export interface SqlCommand {
  at: SnapshotSelector | undefined;
  format: SqlFormat;
  limit: number;
  progress: boolean;
  commit: Authorship;
  params?: SqlParams;
}

export async function sql(c: Catalog, statement: string, o: SqlCommand): Promise<void> {
  const started = performance.now();
  const bar = progressBar('query', o.progress);
  try {
    const batches = c.sqlBatches(statement, { ...(o.at === undefined ? {} : { at: o.at }), ...(bar.onProgress ? { onProgress: bar.onProgress } : {}), ...o.commit, ...(o.params === undefined ? {} : { params: o.params }) });
    await printResult(batches, { format: o.format, limit: o.limit, started, onFirst: bar.stop });
  } finally {
    bar.stop();
  }
}

export async function load(c: Catalog, schema: string, name: string, file: string, progress: boolean, commit: Authorship): Promise<string> {
  const bar = progressBar(`load ${file}`, progress);
  const r = await c.load(schema, name, file, { ...(bar.onProgress ? { onProgress: bar.onProgress } : {}), ...commit }).finally(() => bar.stop());
  return r.snapshot === null
    ? `${file} holds no rows; nothing committed`
    : `loaded ${r.rows} rows into ${schema}.${name} as snapshot ${r.snapshot} (${r.files.map((f) => f.path).join(', ')})`;
}
