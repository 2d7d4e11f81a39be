// Plain-text rendering for the CLI: aligned columns, no colour, so output pipes cleanly.
import type { TableChanges } from '../read/history.js';
import type { VerifyReport } from '../commit/verify.js';

// Control characters (all but the newline, C1 too), and the marks that reorder text that follows them.
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe for a terminal: what is not printable shown as a \u escape, so a name cannot move the cursor,
 * recolour the screen, clear it or reorder what is printed after it.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows].map(cellsOf);
  const widths = widthsOf(cells);
  return [alignedLine(cells[0]!, widths), ruleLine(widths), ...cells.slice(1).map((r) => alignedLine(r, widths))].join('\n');
}

/** A row's cells as printed: escaped before they are measured, so that columns line up as printed. */
export const cellsOf = (row: readonly (string | number)[]): string[] => row.map((c) => printable(String(c)).replaceAll('\n', '\\n'));

/** The width of each column of `rows` (a loop: a spread of every row's width overflows the stack past ~100k rows). */
export function widthsOf(rows: readonly string[][]): number[] {
  const widths: number[] = [];
  for (const r of rows) for (const [i, c] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  return widths;
}

/** A row padded to `widths` (a cell wider than its column pushes the rest of its line). */
export const alignedLine = (r: readonly string[], widths: readonly number[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
export const ruleLine = (widths: readonly number[]) => alignedLine(widths.map((w) => '-'.repeat(w)), widths);

export function renderChanges(name: string, from: string, to: string, c: TableChanges): string {
  const rows = [
    ...c.addedFiles.map((f) => ['+ data', f.path, f.recordCount, f.snapshot]),
    ...c.removedFiles.map((f) => ['- data', f.path, f.recordCount, f.snapshot]),
    ...c.addedDeleteFiles.map((f) => ['+ deletes', f.path, f.deleteCount, f.snapshot]),
    ...c.removedDeleteFiles.map((f) => ['- deletes', f.path, f.deleteCount, f.snapshot]),
  ].sort((a, b) => (a[3] as number) - (b[3] as number));
  return `${name}, snapshots ${from}..${to}\n${table(['change', 'file', 'rows', 'snapshot'], rows)}`;
}

export function describeVerify(r: VerifyReport): string {
  const what = `${r.checked.logEntries} log entries, ${r.checked.keys} index keys${r.checked.censusScans > 1 ? ` (read in ${r.checked.censusScans} slices)` : ''}, checkpoint ${r.checked.checkpoint ?? 'none'}${r.checked.files > 0 ? `, ${r.checked.files} files` : ''}${r.checked.icebergObjects > 0 ? `, ${r.checked.icebergObjects} Iceberg objects` : ''}`;
  if (r.ok) return `ok: every invariant holds (${what})`;
  const rows = r.violations.map((v) => [v.invariant, v.object ?? v.key ?? '', v.message]);
  return `${r.violations.length} violation${r.violations.length === 1 ? '' : 's'} (${what}):\n${table(['invariant', 'where', 'what'], rows)}`;
}

/**
 * A count with its thousands grouped, as toLocaleString('en-US') writes it (12,000; -1,234), without the first
 * call to ICU's number formatting, which costs ~12 ms of a process that makes one.
 */
export function count(n: number): string {
  const [whole, fraction] = String(Math.abs(n)).split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** Bytes as people read them: 812 B, 4.2 KiB, 1.5 GiB. */
export function size(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}
