// A table's Iceberg snapshots against a model that knows nothing of groups or cuts: at every snapshot, the files
// its manifests list are exactly the files live there, each once; a manifest named twice lists the same files;
// and a snapshot needs new manifests only for what its own commit touched.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FileVersion, manifestFiles, planSnapshots } from '../../src/iceberg/table-snapshots.js';
import { propertyRuns } from '../support/property-runs.js';

const noFacts = () => ({ maintenance: false });

/** A history of commits 1..n, each adding files and ending some live ones. */
const history = fc
  .array(fc.record({ add: fc.integer({ min: 0, max: 3 }), end: fc.array(fc.nat(), { maxLength: 3 }), deletes: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 25 })
  .map((commits) => {
    const data: FileVersion[] = [];
    const deletes: FileVersion[] = [];
    let id = 0;
    commits.forEach((c, i) => {
      const s = i + 1;
      const liveData = data.filter((f) => f.end === null);
      for (const pick of c.end) {
        const f = liveData[pick % Math.max(1, liveData.length)];
        if (f !== undefined && f.end === null) f.end = s;
      }
      for (let k = 0; k < c.add; k++) data.push({ id: ++id, records: 10 + k, size: 100 + k, begin: s, end: null });
      const stillLive = data.filter((f) => f.end === null && f.begin < s);
      for (let k = 0; k < c.deletes && k < stillLive.length; k++) {
        for (const d of deletes) if (d.end === null && d.id % 7 === k) d.end = s;
        deletes.push({ id: ++id, records: 1 + k, size: 50, begin: s, end: null });
      }
    });
    return { data, deletes, last: commits.length };
  });

const liveAt = (files: readonly FileVersion[], s: number) => files.filter((f) => f.begin <= s && (f.end === null || f.end > s)).map((f) => f.id).sort((a, b) => a - b);

describe('a table’s Iceberg snapshots', () => {
  it('list exactly the live files, share manifests, and write new ones only for what a commit touched', () => {
    fc.assert(
      fc.property(history, ({ data, deletes, last }) => {
        const planned = planSnapshots(data, deletes, 1, last, noFacts);
        const seen = new Map<string, number[]>();
        let before = new Set<string>();
        for (const p of planned) {
          const listed = { data: [] as number[], deletes: [] as number[] };
          for (const m of p.manifests) {
            const files = manifestFiles(m.content === 'data' ? data : deletes, m).map((f) => f.id);
            expect(files.length).toBeGreaterThan(0);
            listed[m.content].push(...files);
            const name = `${m.content}-${m.group}-${m.cut}`;
            expect(seen.get(name) ?? files).toEqual(files);
            seen.set(name, files);
          }
          expect(listed.data.sort((a, b) => a - b)).toEqual(liveAt(data, p.id));
          expect(listed.deletes.sort((a, b) => a - b)).toEqual(liveAt(deletes, p.id));
          const touched = new Set([...data, ...deletes].filter((f) => f.begin === p.id || f.end === p.id).map((f) => f.begin));
          for (const m of p.manifests) {
            const name = `${m.content}-${m.group}-${m.cut}`;
            if (!before.has(name)) expect(touched.has(m.group), `${name} new at ${p.id}`).toBe(true);
          }
          before = new Set(p.manifests.map((m) => `${m.content}-${m.group}-${m.cut}`));
        }
        const changed = new Set([...data, ...deletes].flatMap((f) => [f.begin, ...(f.end === null ? [] : [f.end])]));
        expect(planned.map((p) => p.id)).toEqual([...changed].sort((a, b) => a - b));
        expect(planned.map((p) => p.parent)).toEqual(planned.map((_, i) => (i === 0 ? null : planned[i - 1]!.id)));
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('count, at every snapshot, what it added and removed and what it holds, as a scan of every file says', () => {
    const sum = (files: readonly FileVersion[], keep: (f: FileVersion) => boolean, of: (f: FileVersion) => number) => files.filter(keep).reduce((n, f) => n + of(f), 0);
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 6 }), ({ data, deletes, last }, from) => {
        for (const p of planSnapshots(data, deletes, from, last, noFacts)) {
          const s = p.id;
          const begun = (f: FileVersion) => f.begin === s;
          const ended = (f: FileVersion) => f.end === s;
          const live = (f: FileVersion) => f.begin <= s && (f.end === null || f.end > s);
          const one = () => 1;
          const rows = (f: FileVersion) => f.records;
          const bytes = (f: FileVersion) => f.size;
          expect(p.summary).toEqual({
            'added-data-files': String(sum(data, begun, one)),
            'deleted-data-files': String(sum(data, ended, one)),
            'added-records': String(sum(data, begun, rows)),
            'deleted-records': String(sum(data, ended, rows)),
            'added-delete-files': String(sum(deletes, begun, one)),
            'removed-delete-files': String(sum(deletes, ended, one)),
            'added-position-deletes': String(sum(deletes, begun, rows)),
            'removed-position-deletes': String(sum(deletes, ended, rows)),
            'added-files-size': String(sum(data, begun, bytes) + sum(deletes, begun, bytes)),
            'removed-files-size': String(sum(data, ended, bytes) + sum(deletes, ended, bytes)),
            'total-records': String(sum(data, live, rows)),
            'total-data-files': String(sum(data, live, one)),
            'total-delete-files': String(sum(deletes, live, one)),
            'total-position-deletes': String(sum(deletes, live, rows)),
            'total-equality-deletes': '0',
            'total-files-size': String(sum(data, live, bytes) + sum(deletes, live, bytes)),
          });
          const added = data.some(begun);
          expect(p.operation).toBe(added && !data.some(ended) && !deletes.some(begun) ? 'append' : added ? 'overwrite' : 'delete');
        }
      }),
      { numRuns: propertyRuns(200) },
    );
  });

  it('name each snapshot’s operation and count what it changed and holds', () => {
    const data: FileVersion[] = [
      { id: 1, records: 10, size: 100, begin: 2, end: 5 },
      { id: 2, records: 20, size: 200, begin: 2, end: null },
      { id: 3, records: 5, size: 50, begin: 4, end: null },
      { id: 4, records: 9, size: 90, begin: 5, end: null },
    ];
    const deletes: FileVersion[] = [{ id: 9, records: 3, size: 30, begin: 3, end: null }];
    const planned = planSnapshots(data, deletes, 1, 6, (s) => ({ maintenance: s === 5 }));
    expect(planned.map((p) => [p.id, p.operation])).toEqual([[2, 'append'], [3, 'delete'], [4, 'append'], [5, 'replace']]);
    expect(planned[1]!.summary).toMatchObject({ 'added-delete-files': '1', 'added-position-deletes': '3', 'total-records': '30', 'total-position-deletes': '3' });
    expect(planned[3]!.summary).toMatchObject({
      'added-data-files': '1', 'deleted-data-files': '1', 'added-records': '9', 'deleted-records': '10', 'total-records': '34', 'total-data-files': '3',
      'total-files-size': '370', 'added-files-size': '90', 'removed-files-size': '100',
    });
    expect(planned[3]!.manifests).toEqual([
      { content: 'data', group: 2, cut: 5 },
      { content: 'data', group: 4, cut: 0 },
      { content: 'data', group: 5, cut: 0 },
      { content: 'deletes', group: 3, cut: 0 },
    ]);
  });

  it('start at the first retained snapshot', () => {
    const data: FileVersion[] = [{ id: 1, records: 1, size: 1, begin: 2, end: null }, { id: 2, records: 1, size: 1, begin: 7, end: null }];
    expect(planSnapshots(data, [], 5, 9, noFacts).map((p) => [p.id, p.parent])).toEqual([[7, null]]);
  });
});
