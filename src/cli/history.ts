// The history as people read it: each snapshot's changes with the names of what they touched (DuckLake's
// changes_made names tables by id: `inserted_into_table:2`) and the tags that pin it.
import type { Catalog } from '../catalog/catalog.js';
import type { SnapshotInfo } from '../read/records.js';
import { table } from './format.js';

const BY_ID = /^(inserted_into_table|deleted_from_table|compacted_table|altered_table|restored_table|dropped_table|dropped_view|dropped_schema):(\d+)$/;
const VERBS: Record<string, string> = {
  inserted_into_table: 'inserted into',
  deleted_from_table: 'deleted from',
  compacted_table: 'compacted',
  altered_table: 'altered',
  restored_table: 'restored',
  dropped_table: 'dropped table',
  dropped_view: 'dropped view',
  dropped_schema: 'dropped schema',
};

/** The names the ids of `ids` had at `at` (Reader.namesOf): none when `at` is out of retention, so they stay ids. */
async function namesAt(c: Catalog, at: number, ids: Iterable<number>): Promise<Map<number, string>> {
  const r = await c.reader({ snapshot: at }).catch(() => undefined);
  if (r === undefined) return new Map();
  try {
    return await r.namesOf([...ids]);
  } finally {
    await r.close();
  }
}

/**
 * Each snapshot's changes in words, with names as they were (a drop names what was there just before). Names
 * change only with the schema version (every create, drop, rename and alter makes a new one), so the names at
 * one snapshot of the page serve every snapshot of its schema version: a page of a hundred inserts looks the
 * ids up once, at one snapshot — each id it names, not the whole catalog.
 */
export async function changesInWords(c: Catalog, snapshots: readonly SnapshotInfo[]): Promise<Map<number, string[]>> {
  const versionOf = new Map<number, number>(snapshots.map((s) => [s.id, s.schemaVersion]));
  const keyOf = (at: number) => {
    const version = versionOf.get(at);
    return version === undefined ? `snapshot ${at}` : `version ${version}`;
  };
  // Each change read first, with the snapshot whose names it needs (and, for altered_table, the one before:
  // DuckLake records a rename as altered_table, and the names before and after tell it apart).
  const changes = new Map(snapshots.map((s) => [s.id, s.changes.map((change) => byId(change, s.id))]));
  // Then one reader per schema version, for every id named there.
  const wanted = new Map<string, { at: number; ids: Set<number> }>();
  for (const change of [...changes.values()].flat()) {
    // An id past what a number holds exactly names nothing Strata made: it stays an id.
    if (typeof change === 'string' || !Number.isSafeInteger(change.id)) continue;
    for (const at of [change.at, change.before]) {
      if (at === undefined || at < 0) continue;
      const key = keyOf(at);
      if (!wanted.has(key)) wanted.set(key, { at, ids: new Set() });
      wanted.get(key)!.ids.add(change.id);
    }
  }
  const names = new Map<string, Map<number, string>>();
  for (const [key, { at, ids }] of wanted) names.set(key, await namesAt(c, at, ids));
  const nameOf = (at: number | undefined, id: number) => (at === undefined || at < 0 ? undefined : names.get(keyOf(at))?.get(id));

  const out = new Map<number, string[]>();
  for (const [id, said] of changes) {
    out.set(
      id,
      said.map((change) => {
        if (typeof change === 'string') return change.replace(/^created_(\w+):/, 'created $1 ');
        const [name, before] = [nameOf(change.at, change.id), nameOf(change.before, change.id)];
        if (before !== undefined && name !== undefined && before !== name) return `renamed ${before} to ${name}`;
        return `${VERBS[change.kind]} ${name ?? `id ${change.id}`}`;
      }),
    );
  }
  return out;
}

/** A change that names an id, with where its names are read; any other change as it is. */
function byId(change: string, snapshot: number): string | { kind: string; id: number; at: number; before: number | undefined } {
  const m = BY_ID.exec(change);
  if (m === null) return change;
  const kind = m[1]!;
  return {
    kind,
    id: Number(m[2]),
    at: kind.startsWith('dropped') ? snapshot - 1 : snapshot,
    before: kind === 'altered_table' && snapshot > 0 ? snapshot - 1 : undefined,
  };
}

export async function snapshotTable(c: Catalog, snapshots: readonly SnapshotInfo[]): Promise<string> {
  const words = await changesInWords(c, snapshots);
  const tags = new Map<number, string[]>();
  for (const t of await c.tags()) tags.set(t.snapshot, [...(tags.get(t.snapshot) ?? []), t.name]);
  return table(
    ['id', 'time', 'schema', 'tags', 'author', 'message', 'changes'],
    snapshots.map((s) => [
      s.id,
      s.time.toISOString(),
      s.schemaVersion,
      (tags.get(s.id) ?? []).join(', '),
      s.author ?? '',
      (s.maintenance ? '[maintenance] ' : '') + (s.message ?? ''),
      words.get(s.id)!.join('; '),
    ]),
  );
}
