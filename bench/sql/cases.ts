// The questions the SQL section asks, each as catalog.sql and as DuckDB over the same files. Query i of a
// case is the same question on every side; the random choices (a range, a table) are drawn once up front.
import { rng } from '../harness.js';
import type { ManyTables, ScanTable } from './build.js';
import type { Case } from './compare.js';
import { countOf, readParquet, scanWithDeletes, selfJoin } from './direct.js';
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

const deletedBy = (t: ScanTable) =>
  t.deleteCommits === 0 ? 'none deleted' : `1% deleted by ${t.deleteCommits === 1 ? 'one DELETE' : `${t.deleteCommits} DELETEs`}`;

/**
 * Four questions of table `t` — a full scan, a GROUP BY, a selective filter and the first rows — each against
 * DuckDB over the same files, with the same deletes applied by hand where there are some.
 */
export function questionCases(t: ScanTable, warm: number): Case[] {
  const pick = rng(13);
  const from = Array.from({ length: warm + 1 }, () => pick(t.perFile * t.data.length - SPAN));
  const questions: [string, (i: number) => { select: string; where?: string; tail?: string }][] = [
    ['full scan', () => ({ select: TOTAL })],
    ['GROUP BY k % 5', () => ({ select: 'SELECT k % 5 AS g, count(*) AS n, sum(v) AS sv', tail: ' GROUP BY g ORDER BY g' })],
    [`id BETWEEN a AND a + ${SPAN.toLocaleString('en-US')}`, (i) => ({ select: TOTAL, where: `id BETWEEN ${from[i]} AND ${from[i]! + SPAN}` })],
    // How many of the first five rows come back: their number is fixed where which rows are not.
    ['LIMIT 5', () => ({ select: 'SELECT count(*) AS n FROM (SELECT *', tail: ' LIMIT 5)' })],
  ];
  const files = `${t.data.length.toLocaleString('en-US')} file${t.data.length === 1 ? '' : 's'}`;
  return questions.map(([label, q]) => {
    const sql = (i: number, from: string, where = q(i).where) => `${q(i).select} FROM ${from}${where ? ` WHERE ${where}` : ''}${q(i).tail ?? ''}`;
    const direct =
      t.deletes.length === 0
        ? directSide('DuckDB direct', (i) => sql(i, readParquet(t.data)))
        : directSide('DuckDB, deletes by hand', (i) => {
            const { select, where, tail } = q(i);
            return `${scanWithDeletes(select, t.data, t.deletes, where)}${tail ?? ''}`;
          });
    return { label: `${files}, ${deletedBy(t)}: ${label}`, warm, sides: [catalogSide(t.dir, (i) => sql(i, 't')), direct] };
  });
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
