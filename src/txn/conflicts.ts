// DuckLake's conflict rules between a transaction that lost the race for the next log entry and the commits
// that won it. Inserts into one table commute; most other pairs that touch one object do not. What each side
// did is read from DuckLake's `changes_made` vocabulary (plan.ts writes it), plus what only the pending state
// knows (which schemas we create in, which data files we delete from, restores).
import { type CatalogId, catalogId, type FileId, type SnapshotId, snapshotId } from '../../keys/ids.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import { quote } from '../messages.js';
import * as q from '../read/catalog-queries.js';
import { dataFile, deleteFilesAt } from '../read/file-listing.js';
import { classify } from './change.js';
import type { PendingState } from './pending.js';
import { changedRead, type ReadSet } from './read-set.js';

/** What one commit did, by kind of change. */
export interface Footprint {
  createdSchemas: Set<string>;
  /** Quoted `"schema"."name"` of created tables and views. */
  createdRelations: Set<string>;
  insertedTables: Set<CatalogId>;
  deletedTables: Set<CatalogId>;
  compactedTables: Set<CatalogId>;
  droppedTables: Set<CatalogId>;
  droppedViews: Set<CatalogId>;
  droppedSchemas: Set<CatalogId>;
  alteredTables: Set<CatalogId>;
  /** Tables a restore changed: their files and deletes, whichever way (Strata's word; DuckLake has no restore). */
  restoredTables: Set<CatalogId>;
}

function emptyFootprint(): Footprint {
  return {
    createdSchemas: new Set(),
    createdRelations: new Set(),
    insertedTables: new Set(),
    deletedTables: new Set(),
    compactedTables: new Set(),
    droppedTables: new Set(),
    droppedViews: new Set(),
    droppedSchemas: new Set(),
    alteredTables: new Set(),
    restoredTables: new Set(),
  };
}

type NameSet = 'createdSchemas' | 'createdRelations';
type IdSet = Exclude<keyof Footprint, NameSet>;

/** Which set each `changes_made` kind goes to: names for creations, catalog ids for the rest. */
const KINDS = new Map<string, { names: NameSet } | { ids: IdSet }>([
  ['created_schema', { names: 'createdSchemas' }],
  ['created_table', { names: 'createdRelations' }],
  ['created_view', { names: 'createdRelations' }],
  ['inserted_into_table', { ids: 'insertedTables' }],
  ['deleted_from_table', { ids: 'deletedTables' }],
  ['compacted_table', { ids: 'compactedTables' }],
  ['dropped_table', { ids: 'droppedTables' }],
  ['dropped_view', { ids: 'droppedViews' }],
  ['dropped_schema', { ids: 'droppedSchemas' }],
  ['altered_table', { ids: 'alteredTables' }],
  ['restored_table', { ids: 'restoredTables' }],
]);

/** Reads a `changes_made` list; entries of kinds this version does not know are ignored, as DuckLake does. */
export function footprintOf(changes: readonly string[]): Footprint {
  const f = emptyFootprint();
  for (const change of changes) {
    const colon = change.indexOf(':');
    const target = KINDS.get(change.slice(0, colon));
    const value = change.slice(colon + 1);
    if (target === undefined) continue;
    if ('names' in target) f[target.names].add(value);
    else f[target.ids].add(catalogId(Number(value)));
  }
  return f;
}

/** Our side: the changes list of our plan, plus what only the pending state says. */
export interface OwnFootprint extends Footprint {
  /** Schemas we create a table or view in. */
  createdInSchemas: Set<CatalogId>;
  /** Names of the schemas we drop, by id (a concurrent create in one is matched by name). */
  droppedSchemaNames: Map<CatalogId, string>;
  /** Data files (that existed at our base) we remove or add a delete file for, with their table. */
  deletedDataFiles: Map<FileId, CatalogId>;
  /**
   * Tables we restore (whether or not the restore changed them: on the newer state it may): a restore
   * rewrites the whole table, so any concurrent change to it conflicts.
   */
  restoredTables: Set<CatalogId>;
  /** A catalog restore conflicts with every concurrent commit. */
  restoresCatalog: boolean;
}

export function ownFootprint(state: PendingState, changes: readonly string[]): OwnFootprint {
  const createdInSchemas = new Set<CatalogId>();
  for (const map of [state.tables, state.views]) {
    for (const c of map.values()) if (c.base === undefined && c.next !== null) createdInSchemas.add(c.next.schemaId);
  }
  const droppedSchemaNames = new Map<CatalogId, string>();
  for (const [id, c] of state.schemas) if (classify(c) === 'dropped') droppedSchemaNames.set(id, c.base!.row.name);
  const deletedDataFiles = new Map<FileId, CatalogId>();
  for (const [id, c] of state.dataFiles) if (c.base !== undefined && c.next === null) deletedDataFiles.set(id, c.tableId);
  for (const c of state.deleteFiles.values()) {
    if (c.base !== undefined || c.next === null) continue;
    // A file this transaction registered has an id no other commit knows.
    const newFile = state.dataFiles.get(c.next.dataFileId)?.base === undefined && state.dataFiles.has(c.next.dataFileId);
    if (!newFile) deletedDataFiles.set(c.next.dataFileId, c.tableId);
  }
  return {
    ...footprintOf(changes),
    createdInSchemas,
    droppedSchemaNames,
    deletedDataFiles,
    restoredTables: new Set(state.restoredTables),
    restoresCatalog: state.ops.some((op) => op.name === 'restoreCatalog'),
  };
}

/**
 * Another commit's footprint, read once per decoded changes list: the later members of a group commit
 * each check the snapshots of all the members before them, whose rows their views share.
 */
const footprints = new WeakMap<readonly string[], Footprint>();

function theirFootprint(changes: readonly string[]): Footprint {
  let f = footprints.get(changes);
  // Stryker disable next-line ConditionalExpression: a cache; reading the list again gives the same footprint
  if (f === undefined) footprints.set(changes, (f = footprintOf(changes)));
  return f;
}

const conflict = (other: SnapshotId, what: string) =>
  new StrataError(
    'CONFLICT',
    `${what} (snapshot ${other}, committed by another transaction, of this process or another writer, while this one was being prepared); ` +
      'nothing was written — read the new state and run the transaction again',
    { snapshot: other },
  );

/**
 * History the check needs that excision removed while the transaction ran (retain-from moved past a commit
 * since its base): what that commit did can no longer be read, so the transaction cannot be checked against
 * it, and taking it for "nothing" would let a lost write through.
 */
const excised = (other: SnapshotId, what: string) =>
  new StrataError(
    'CONFLICT',
    `${what} was excised while this transaction ran (retain-from moved past it), so this transaction cannot be checked against the commits since its base; ` +
      'nothing was written — read the new state and run the transaction again',
    { snapshot: other },
  );

/**
 * The first conflict between our transaction (built on `base`) and the commits in (base, head] of `view`,
 * or undefined when ours can be replayed on top of them.
 */
export async function findConflict(view: ReadView, base: SnapshotId, head: SnapshotId, ours: OwnFootprint): Promise<StrataError | undefined> {
  for (let s = snapshotId(base + 1); s <= head; s = snapshotId(s + 1)) {
    // Every commit writes its changes row with its snapshot row; only excision deletes one.
    const changes = await q.snapshotChanges(view, s);
    if (changes === undefined) return excised(s, `what snapshot ${s} changed`);
    const theirs = theirFootprint(changes.changes);
    const found = ruleConflict(s, ours, theirs) ?? (await fileConflict(view, s, ours, theirs));
    if (found) return found;
  }
  return undefined;
}

/** A conflict of what a function read with a commit it had not seen: the function runs again (decision 0057). */
export class StaleRead extends StrataError {}

/**
 * The first of `snapshots` — commits of other writers that a transaction's function may not have seen, when
 * its process did not ask the store first (decision 0057) — that changed what the function read (`reads`),
 * or undefined when none did.
 */
export async function readConflict(view: ReadView, reads: ReadSet, snapshots: Iterable<SnapshotId>): Promise<StrataError | undefined> {
  if (reads.empty) return undefined;
  for (const s of snapshots) {
    const changes = await q.snapshotChanges(view, s);
    if (changes === undefined) return excised(s, `what snapshot ${s} changed`);
    const hit = changedRead(reads, theirFootprint(changes.changes));
    if (hit === undefined) continue;
    return new StaleRead(
      'CONFLICT',
      `this transaction read ${hit.read}, and snapshot ${s}, a commit of another writer that this process had not seen when the function ran ` +
        `(a transaction on a log kept as objects does not ask the store first: docs/decisions/0057), ${hit.change}; nothing was written — ` +
        'run the transaction again: this process has read that commit now',
      { snapshot: s },
    );
  }
  return undefined;
}

type Rule = { hit: (ours: OwnFootprint, theirs: Footprint) => unknown; message: (hit: never) => string };

/** A rule that ours[a] and theirs[b] share no member. */
const pair = (a: keyof Footprint | 'createdInSchemas', b: keyof Footprint, message: (x: string | number) => string): Rule => ({
  hit: (ours, theirs) => shared<unknown>(ours[a], theirs[b]),
  message: message as (hit: never) => string,
});

/**
 * DuckLake's rules, in the order they are checked (the first hit names the conflict). A compaction and a
 * delete meet on files, not on the table: a delete from a file the compaction rewrites (either order) is
 * `fileConflict`'s, and deletes from the table's other files commute with it, so that compaction finishes
 * while writers run (decision 0044). Built once, not per
 * call: a later member of a group commit checks every snapshot since its base (~15 per member with 8
 * callers), and building the rules on each call was most of a rebase's conflict check.
 */
const RULES: readonly Rule[] = [
  pair('droppedTables', 'droppedTables', (t) => `this transaction drops table ${t}, but another transaction dropped it already`),
  pair('droppedViews', 'droppedViews', (v) => `this transaction drops view ${v}, but another transaction dropped it already`),
  pair('droppedSchemas', 'droppedSchemas', (s) => `this transaction drops schema ${s}, but another transaction dropped it already`),
  {
    hit: droppedSchemaHit,
    message: ([id, name]: [CatalogId, string]) => `this transaction drops schema ${quote(name)} (id ${id}), but another transaction created an entry in it`,
  } as Rule,
  pair('createdInSchemas', 'droppedSchemas', (s) => `this transaction creates an entry in schema ${s}, but another transaction dropped that schema`),
  pair('createdSchemas', 'createdSchemas', (n) => `this transaction creates schema ${n}, but another transaction created a schema of that name`),
  pair('createdRelations', 'createdRelations', (n) => `this transaction creates ${n}, but another transaction created an entry of that name`),
  pair('insertedTables', 'droppedTables', (t) => `this transaction inserts into table ${t}, but another transaction dropped it`),
  pair('insertedTables', 'alteredTables', (t) => `this transaction inserts into table ${t}, but another transaction altered it`),
  pair('deletedTables', 'droppedTables', (t) => `this transaction deletes from table ${t}, but another transaction dropped it`),
  pair('deletedTables', 'alteredTables', (t) => `this transaction deletes from table ${t}, but another transaction altered it`),
  pair('compactedTables', 'droppedTables', (t) => `this transaction compacts table ${t}, but another transaction dropped it`),
  pair('compactedTables', 'compactedTables', (t) => `this transaction compacts table ${t}, but another transaction compacted it`),
  pair('alteredTables', 'droppedTables', (t) => `this transaction alters table ${t}, but another transaction dropped it`),
  pair('alteredTables', 'alteredTables', (t) => `this transaction alters table ${t}, but another transaction altered it`),
  {
    hit: (ours, theirs) =>
      ours.restoredTables.size === 0
        ? undefined
        : [...ours.restoredTables].find((t) => TABLE_CHANGES.some((k) => theirs[k].has(t))),
    message: (t: CatalogId) => `this transaction restores table ${t}, but another transaction changed it`,
  } as Rule,
];

/** What a restored table conflicts with: any change to it. */
const TABLE_CHANGES = ['insertedTables', 'deletedTables', 'compactedTables', 'droppedTables', 'alteredTables', 'restoredTables'] as const;

/** The first of DuckLake's rules that `ours` and one other commit's `theirs` break (exported for its tests). */
export function ruleConflict(s: SnapshotId, ours: OwnFootprint, theirs: Footprint): StrataError | undefined {
  if (ours.restoresCatalog) return conflict(s, 'this transaction restores the whole catalog, but another commit changed it');
  for (const rule of RULES) {
    const hit = rule.hit(ours, theirs);
    if (hit !== undefined) return conflict(s, rule.message(hit as never));
  }
  return undefined;
}

/** A member of both sets, if any; nothing is allocated, as most pairs have an empty side. */
function shared<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): T | undefined {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; the loop finds nothing in an empty set either
  if (a.size === 0 || b.size === 0) return undefined;
  for (const x of a) if (b.has(x)) return x;
  return undefined;
}

function droppedSchemaHit(ours: OwnFootprint, theirs: Footprint): [CatalogId, string] | undefined {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; the loops find nothing in an empty set either
  if (ours.droppedSchemaNames.size === 0 || theirs.createdRelations.size === 0) return undefined;
  for (const [id, name] of ours.droppedSchemaNames) {
    const prefix = `${quote(name)}.`;
    for (const r of theirs.createdRelations) if (r.startsWith(prefix)) return [id, name];
  }
  return undefined;
}

/**
 * Two deletes from one data file conflict (delete files are cumulative: the second would drop the first's
 * rows), as does a delete from a file another commit removed or whose deleted rows it brought back, and the
 * removal of a file (a compaction rewriting it) that another commit deleted from: its rows would come back.
 * Checked on the newest state, and only for tables the other commit deleted from, compacted or restored.
 */
async function fileConflict(view: ReadView, s: SnapshotId, ours: OwnFootprint, theirs: Footprint): Promise<StrataError | undefined> {
  const ownCompacted = ours.compactedTables;
  // Stryker disable next-line MethodExpression,ConditionalExpression: a shortcut; a table the other commit did not delete from, compact or restore has no delete file it began and no data file it ended
  const tables = new Set([...ours.deletedDataFiles.values()].filter((t) => theirs.deletedTables.has(t) || theirs.compactedTables.has(t) || theirs.restoredTables.has(t)));
  for (const tableId of tables) {
    const touched = new Set<FileId>();
    for await (const batch of deleteFilesAt(view, s, tableId)) {
      for (const d of batch) if (d.begin === s) touched.add(d.row.dataFileId);
    }
    // Delete files it ended without a successor (a restore bringing rows back) are not visible at `s`.
    for await (const batch of deleteFilesAt(view, snapshotId(s - 1), tableId)) {
      for (const d of batch) if (d.row.end === s) touched.add(d.row.dataFileId);
    }
    for (const [fileId, t] of ours.deletedDataFiles) {
      // Stryker disable next-line ConditionalExpression: a shortcut; file ids are unique across tables, so another table's file is neither touched nor found here
      if (t !== tableId) continue;
      const file = await dataFile(view, tableId, fileId);
      const verb = ownCompacted.has(tableId) ? 'rewrites' : 'deletes from';
      // It was live at our base, and a version goes only when excision removes it, once it ended at or
      // before retain-from: a commit since our base ended it, maybe not `s`.
      if (file === undefined) return excised(s, `data file ${fileId} of table ${tableId}, which this transaction ${verb} and another transaction removed,`);
      if (touched.has(fileId) || file.row.end === s) {
        return conflict(s, `this transaction ${verb} data file ${fileId} of table ${tableId}, but another transaction ${file.row.end === s ? 'removed it' : 'deleted from it'}`);
      }
    }
  }
  return undefined;
}
