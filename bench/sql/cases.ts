// The questions the SQL section asks, each as catalog.sql and as DuckDB over the same files. Query i of a
// case is the same question on every side; the random choices (a range, a table) are drawn once up front.
import { rng } from '../harness.js';
import type { ManyTables, ScanTable } from './build.js';
import type { Case } from './compare.js';
import { countOf, scanWithDeletes, selfJoin } from './direct.js';
import { catalogSide, directSide } from './sides.js';

/** Width of the predicate's id range, well inside one data file. */
export const SPAN = 1000;

const TOTAL = 'SELECT count(*) AS n, sum(v) AS sv';

export function scanCases(scan: ScanTable, warm: number): Case[] {
  const { data, deletes, perFile } = scan;
  // A range inside one file, a different one each query: which file, then where in it.
  const pick = rng(7);
  const from = Array.from({ length: warm + 1 }, () => pick(data.length) * perFile + pick(perFile - SPAN));
  const file = (i: number) => Math.floor(from[i]! / perFile);
  const range = (i: number) => `id BETWEEN ${from[i]} AND ${from[i]! + SPAN}`;
  return [
    {
      label: 'full scan: count(*), sum(v)',
      warm,
      sides: [catalogSide(scan.dir, () => `${TOTAL} FROM t`), directSide('DuckDB direct', () => scanWithDeletes(TOTAL, data, deletes))],
    },
    {
      label: `id BETWEEN a AND a + ${SPAN.toLocaleString('en-US')} (one file holds them)`,
      warm,
      sides: [
        catalogSide(scan.dir, (i) => `${TOTAL} FROM t WHERE ${range(i)}`),
        directSide('DuckDB direct, every file', (i) => scanWithDeletes(TOTAL, data, deletes, range(i))),
        // What file skipping aims at: only the file whose id range meets the predicate's.
        directSide('DuckDB direct, that one file', (i) => scanWithDeletes(TOTAL, [data[file(i)]!], [deletes[file(i)]!], range(i))),
      ],
    },
  ];
}

export function bindCases(many: ManyTables, calls: number): Case[] {
  const table = rng(11);
  const ks = Array.from({ length: calls + 1 }, () => table(many.files.length));
  const files = (i: number) => many.files[ks[i]!]!;
  const [older, newer] = [(i: number) => many.versions[ks[i]!]![0]!, (i: number) => many.versions[ks[i]!]!.at(-1)!];
  return [
    {
      label: 'SELECT count(*) FROM s.t_k',
      warm: calls,
      sides: [catalogSide(many.dir, (i) => `SELECT count(*) AS n FROM s.t_${ks[i]}`), directSide('DuckDB direct', (i) => countOf(files(i)))],
    },
    {
      label: 'self-join of s.t_k at two snapshots',
      warm: calls,
      sides: [
        catalogSide(
          many.dir,
          (i) => `SELECT count(*) AS n FROM s.t_${ks[i]} AS a AT (VERSION => ${older(i)}) JOIN s.t_${ks[i]} AS b AT (VERSION => ${newer(i)}) ON a.id = b.id`,
        ),
        directSide('DuckDB direct', (i) => selfJoin(files(i).slice(0, 1), files(i))),
      ],
    },
  ];
}
