// The rule both name indexes keep (schemas.ts, relations.ts): an entity's name at every snapshot it is
// visible is found through the index, and the index names no entity that is not there under that name.
// `table(schema, name)` at S trusts the newest index entry at or below S, so an entry that disagrees with
// the rows would answer with the wrong entity, or none.
import { isVisible } from './visibility.js';
import type { Violation } from './violation.js';

export interface NamedVersion {
  id: number;
  /** The schema a relation is in; 0 for schemas (one namespace). */
  parent: number;
  name: string;
  begin: number;
  end: number | null;
  key: string;
}

export interface NameEntry {
  parent: number;
  name: string;
  id: number;
  begin: number;
  end: number | null;
  key: string;
}

/** Adds `v` to the list under `k`. */
function listed<K, V>(lists: Map<K, V[]>, k: K, v: V): void {
  const list = lists.get(k);
  if (list === undefined) lists.set(k, [v]);
  else list.push(v);
}

/** Index entries against the versions of the entities they name; `what` names the entities in messages. */
export function nameIndexProblems(what: string, versions: readonly NamedVersion[], entries: readonly NameEntry[]): Violation[] {
  const out: Violation[] = [];
  const byName = new Map<string, NameEntry[]>();
  for (const e of entries) listed(byName, `${e.parent}\0${e.name}`, e);
  const byId = new Map<number, NamedVersion[]>();
  for (const v of versions) listed(byId, v.id, v);
  // Every snapshot a version is visible at: checked at its first one and at its last, where a rename shows.
  for (const v of versions) {
    for (const at of v.end === null ? [v.begin] : [v.begin, v.end - 1]) {
      const found = byName.get(`${v.parent}\0${v.name}`)?.find((e) => isVisible(e.begin, e.end, at));
      if (found?.id !== v.id) {
        out.push({
          invariant: 'name-index-covers-every-name',
          key: v.key,
          message: `${what} ${v.id} is called ${JSON.stringify(v.name)} at snapshot ${at}, but the name index gives ${found === undefined ? 'nothing' : `${what} ${found.id}`} there`,
        });
      }
    }
  }
  for (const e of entries) {
    const named = byId.get(e.id)?.find((v) => isVisible(v.begin, v.end, e.begin));
    if (named === undefined || named.name !== e.name || named.parent !== e.parent) {
      out.push({
        invariant: 'name-index-names-what-exists',
        key: e.key,
        message: `the name index says ${JSON.stringify(e.name)} is ${what} ${e.id} from snapshot ${e.begin}, but ${
          named === undefined ? `no version of ${what} ${e.id} is visible there` : `it is called ${JSON.stringify(named.name)} there`
        }`,
      });
    }
  }
  return out;
}
