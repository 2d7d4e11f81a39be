// The rule both name indexes keep (keys/name-index.ts), as verify reports it: every name a version is visible
// under is found through the index at its first and its last snapshot, and every index entry names an entity
// that is there under that name, in that parent, when the entry begins.
import { describe, expect, it } from 'vitest';
import { type NamedVersion, type NameEntry, nameIndexProblems } from '../../keys/name-index.js';

const version = (id: number, name: string, begin: number, end: number | null, parent = 1): NamedVersion => ({ id, parent, name, begin, end, key: `v${id}@${begin}` });
const entry = (name: string, id: number, begin: number, end: number | null, parent = 1): NameEntry => ({ parent, name, id, begin, end, key: `e${name}@${begin}` });

describe('name index rule', () => {
  it('a rename: each name indexed for exactly the snapshots it was the name', () => {
    const versions = [version(7, 'a', 2, 5), version(7, 'b', 5, null)];
    const entries = [entry('a', 7, 2, 5), entry('b', 7, 5, null)];
    expect(nameIndexProblems('table', versions, entries)).toEqual([]);
  });

  it('a name dropped and taken again by another entity: each entry answers for its own snapshots', () => {
    const versions = [version(7, 'a', 2, 5), version(8, 'a', 6, null), version(9, 'a', 6, null, 2)];
    const entries = [entry('a', 7, 2, 5), entry('a', 8, 6, null), entry('a', 9, 6, null, 2)];
    expect(nameIndexProblems('table', versions, entries)).toEqual([]);
    // Entity 7's last snapshot (4) finds the newer entry's id if the older one is left open.
    expect(nameIndexProblems('table', versions.slice(0, 2), [entry('a', 8, 2, null)]).map((v) => v.message)).toEqual([
      'table 7 is called "a" at snapshot 2, but the name index gives table 8 there',
      'table 7 is called "a" at snapshot 4, but the name index gives table 8 there',
      'the name index says "a" is table 8 from snapshot 2, but no version of table 8 is visible there',
    ]);
  });

  it('an open version the index lacks', () => {
    expect(nameIndexProblems('table', [version(7, 'a', 2, null)], [])).toEqual([
      { invariant: 'name-index-covers-every-name', key: 'v7@2', message: 'table 7 is called "a" at snapshot 2, but the name index gives nothing there' },
    ]);
  });

  it('an ended version is checked at its first and its last snapshot', () => {
    // The entry ends one snapshot early: the version's last snapshot (4) finds nothing.
    expect(nameIndexProblems('schema', [version(3, 's', 2, 5, 0)], [entry('s', 3, 2, 4, 0)])).toEqual([
      { invariant: 'name-index-covers-every-name', key: 'v3@2', message: 'schema 3 is called "s" at snapshot 4, but the name index gives nothing there' },
    ]);
    // The entry begins one snapshot late: the first snapshot (2) finds nothing.
    expect(nameIndexProblems('schema', [version(3, 's', 2, 5, 0)], [entry('s', 3, 3, 5, 0)]).map((v) => v.message)).toEqual([
      'schema 3 is called "s" at snapshot 2, but the name index gives nothing there',
    ]);
    // Neither end covered: both reported.
    expect(nameIndexProblems('schema', [version(3, 's', 2, 5, 0)], []).map((v) => v.message)).toEqual([
      'schema 3 is called "s" at snapshot 2, but the name index gives nothing there',
      'schema 3 is called "s" at snapshot 4, but the name index gives nothing there',
    ]);
  });

  it('the index gives another entity under the name', () => {
    const found = nameIndexProblems('table or view', [version(7, 'a', 2, null), version(8, 'b', 2, null)], [entry('a', 8, 2, null), entry('b', 8, 2, null)]);
    expect(found).toEqual([
      { invariant: 'name-index-covers-every-name', key: 'v7@2', message: 'table or view 7 is called "a" at snapshot 2, but the name index gives table or view 8 there' },
      { invariant: 'name-index-names-what-exists', key: 'ea@2', message: 'the name index says "a" is table or view 8 from snapshot 2, but it is called "b" there' },
    ]);
  });

  it('an entry for an entity not there, or there in another parent', () => {
    // Entity 9 has no version at all; entity 7 is in parent 1, the entry puts it in parent 2.
    const found = nameIndexProblems('table', [version(7, 'a', 2, null)], [entry('a', 7, 2, null), entry('x', 9, 3, null), entry('a', 7, 2, null, 2)]);
    expect(found).toEqual([
      { invariant: 'name-index-names-what-exists', key: 'ex@3', message: 'the name index says "x" is table 9 from snapshot 3, but no version of table 9 is visible there' },
      { invariant: 'name-index-names-what-exists', key: 'ea@2', message: 'the name index says "a" is table 7 from snapshot 2, but it is called "a" there' },
    ]);
  });
});
