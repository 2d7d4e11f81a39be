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

/** What had an id at `at`: schemas by id, and tables and views as schema.name. */
async function namesAt(c: Catalog, at: number): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const r = await c.reader({ snapshot: at }).catch(() => undefined);
  if (r === undefined) return out; // out of retention: the ids stay ids
  try {
    for (const s of await r.schemas()) {
      out.set(s.id, s.name);
      for (const t of await r.tables(s.name)) out.set(t.id, `${s.name}.${t.name}`);
      for (const v of await r.views(s.name)) out.set(v.id, `${s.name}.${v.name}`);
    }
  } finally {
    await r.close();
  }
  return out;
}

/**
 * Each snapshot's changes in words, with names as they were (a drop names what was there just before). Names
 * change only with the schema version (every create, drop, rename and alter makes a new one), so the names at
 * a snapshot of the page serve every snapshot of its schema version: a page of a hundred inserts reads the
 * catalog's names once, not once per snapshot.
 */
export async function changesInWords(c: Catalog, snapshots: readonly SnapshotInfo[]): Promise<Map<number, string[]>> {
  const cache = new Map<string, Promise<Map<number, string>>>();
  const versionOf = new Map<number, number>(snapshots.map((s) => [s.id, s.schemaVersion]));
  const names = (at: number) => {
    const version = versionOf.get(at);
    const key = version === undefined ? `snapshot ${at}` : `version ${version}`;
    if (!cache.has(key)) cache.set(key, namesAt(c, at));
    return cache.get(key)!;
  };
  const out = new Map<number, string[]>();
  for (const s of snapshots) {
    const words: string[] = [];
    for (const change of s.changes) {
      const m = BY_ID.exec(change);
      if (m === null) {
        words.push(change.replace(/^created_(\w+):/, 'created $1 '));
        continue;
      }
      const [, kind, id] = m;
      const at = kind!.startsWith('dropped') ? s.id - 1 : s.id;
      const name = at >= 0 ? (await names(at)).get(Number(id)) : undefined;
      // DuckLake records a rename as altered_table: the names before and after tell it apart.
      const before = kind === 'altered_table' && s.id > 0 ? (await names(s.id - 1)).get(Number(id)) : undefined;
      if (before !== undefined && name !== undefined && before !== name) words.push(`renamed ${before} to ${name}`);
      else words.push(`${VERBS[kind!]} ${name ?? `id ${id}`}`);
    }
    out.set(s.id, words);
  }
  return out;
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
