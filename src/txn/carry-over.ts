// A rebase without a replay. A transaction that only adds and removes files reads nothing but its own
// tables (their rows, columns, stats, files), so when the commits it lost to only changed the files of
// other tables, its sealed state is what a replay on the newer state would build, but for the snapshot it
// follows and the id counters, which only grow. Group commit meets this case on most members (commits into
// different tables), and the replay was about half of each later member's rebase (docs/decisions/0004).
import { type CatalogId, catalogId, fileId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import type { SnapshotRow } from '../../keys/snapshots.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { dataFile, deleteFile } from '../read/file-listing.js';
import { classify } from './change.js';
import type { OpName, PendingState } from './pending.js';

/** Operations whose outcome depends only on the state of the table they name. */
const FILE_OPS: ReadonlySet<OpName> = new Set<OpName>(['addDataFile', 'addDataFiles', 'removeDataFile', 'addDeleteFile']);

/** `changes_made` kinds that change a table's files and nothing else (see plan.ts). */
const FILE_CHANGES = new Set(['inserted_into_table', 'deleted_from_table', 'compacted_table']);

/**
 * `state` as it stands on `head`, when the snapshots after its base changed only the files of tables it
 * does not touch; undefined when it must be replayed there (after the conflict check, which this is not).
 */
export async function carriedOver(view: ReadView, state: PendingState, head: { begin: SnapshotId; row: SnapshotRow }): Promise<PendingState | undefined> {
  const tables = filesOnly(state);
  if (tables === undefined) return undefined;
  for (let s = snapshotId(state.base + 1); s <= head.begin; s = snapshotId(s + 1)) {
    const changes = (await q.snapshotChanges(view, s))?.changes;
    // An empty list says nothing: a restore committed before restored_table was written, that only brought
    // deleted rows back, ended delete files and named no table.
    if (changes === undefined || changes.length === 0 || !changes.every((c) => touchesOnlyFilesOfOthers(c, tables))) return undefined;
  }
  if (!(await stillLive(view, state))) return undefined;
  return movedTo(state, head);
}

/**
 * `state` carried to `head` past commits that its caller planned itself and knows to have touched only the
 * tables in `others` (every table their states touched, not only those whose files they changed): what
 * carriedOver finds by reading those commits back, without reading. Group commit asks it for a member whose
 * function ran on the state the group's entry follows, past the members before it. Such commits cannot have
 * ended a file of this state's tables either, so no file is read again. Undefined when the state does more
 * than add and remove files, or shares a table with them; else the carried state and the tables it touches.
 */
export function carriedPast(
  state: PendingState,
  head: { begin: SnapshotId; row: SnapshotRow },
  others: ReadonlySet<CatalogId>,
): { state: PendingState; tables: ReadonlySet<CatalogId> } | undefined {
  const tables = filesOnly(state);
  if (tables === undefined) return undefined;
  for (const t of tables) if (others.has(t)) return undefined;
  return { state: movedTo(state, head), tables };
}

/** The state as it stands on `head`: its base moved, its id counters raised to the head's (they only grow). */
function movedTo(state: PendingState, head: { begin: SnapshotId; row: SnapshotRow }): PendingState {
  return {
    ...state,
    base: head.begin,
    nextCatalogId: catalogId(Math.max(state.nextCatalogId, head.row.nextCatalogId)),
    nextFileId: fileId(Math.max(state.nextFileId, head.row.nextFileId)),
  };
}

/** The tables a state touches, if all it does is add and remove their files; else undefined. */
export function filesOnly(state: PendingState): Set<CatalogId> | undefined {
  if (!state.ops.every((op) => FILE_OPS.has(op.name))) return undefined;
  if (state.options.size > 0 || state.restoredTables.size > 0 || state.keepEmptySnapshot) return undefined;
  for (const map of [state.schemas, state.tables, state.views]) {
    for (const c of map.values()) if (classify(c) !== 'none') return undefined;
  }
  for (const cols of state.columns.values()) {
    for (const c of cols.changes.values()) if (classify(c) !== 'none') return undefined;
  }
  const tables = new Set<CatalogId>([...state.tables.keys(), ...state.columns.keys(), ...state.nextRowIds.keys(), ...state.baseStats.keys()]);
  for (const c of state.dataFiles.values()) tables.add(c.tableId);
  for (const c of state.deleteFiles.values()) tables.add(c.tableId);
  return tables;
}

/**
 * Whether every file version the state will end is still live on `view`. changes_made does not name every
 * table whose files a commit ends (see above), so what the plan ends is read again: ending a version twice
 * would rewrite the snapshot that ended it first.
 */
async function stillLive(view: ReadView, state: PendingState): Promise<boolean> {
  for (const [id, c] of state.dataFiles) {
    if (c.base !== undefined && classify(c) !== 'none' && (await dataFile(view, c.tableId, id))?.row.end !== null) return false;
  }
  for (const [id, c] of state.deleteFiles) {
    if (c.base !== undefined && classify(c) !== 'none' && (await deleteFile(view, c.tableId, id))?.row.end !== null) return false;
  }
  return true;
}

function touchesOnlyFilesOfOthers(change: string, tables: ReadonlySet<CatalogId>): boolean {
  const colon = change.indexOf(':');
  return FILE_CHANGES.has(change.slice(0, colon)) && !tables.has(catalogId(Number(change.slice(colon + 1))));
}
