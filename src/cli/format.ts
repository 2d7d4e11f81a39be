// Plain-text rendering for the CLI: aligned columns, no colour, so output pipes cleanly.
import type { SnapshotInfo } from '../read/records.js';

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(cells[0]!), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}

export function snapshotTable(snapshots: SnapshotInfo[]): string {
  return table(
    ['id', 'time', 'schema', 'author', 'message', 'changes'],
    snapshots.map((s) => [
      s.id,
      s.time.toISOString(),
      s.schemaVersion,
      s.author ?? '',
      (s.maintenance ? '[maintenance] ' : '') + (s.message ?? ''),
      s.changes.join(', '),
    ]),
  );
}
