// A commit never gives a new object an id another object holds. Ids come from blocks claimed above the id
// horizon, which never falls below a snapshot's counters (docs/decisions/0009), so only a store whose counters
// or horizon were put behind the ids in use — damaged, or written by a faulty writer — could hand one out; the
// object would then share its id with another and every read of either would be wrong. These are the checks
// behind the counters (docs/decisions/0033): a new object's id is looked up when its commit is planned,
// except a data file's taken from this writer's block — the one hot path, where a seek would cost as much as
// the rest of the commit's planning — whose block was checked free of data files when it was claimed.
import { columnsOfTable } from '../../keys/columns.js';
import { ALL_ID_RANGES, decodeFileTableKey, decodeIdRange, FILE_TABLE_ENTRIES, fileTablePrefix } from '../../keys/data-files.js';
import { deleteFileEntity } from '../../keys/delete-files.js';
import { type Group, groupPrefix } from '../../keys/groups.js';
import type { CatalogId, FileId } from '../../keys/ids.js';
import type { Key } from '../../keys/key-codec.js';
import { tableEntity, viewEntity } from '../../keys/relations.js';
import { schemaEntity } from '../../keys/schemas.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { classify } from './change.js';
import type { PendingState } from './pending.js';

type CatalogKind = 'schema' | 'table' | 'view';

const CATALOG_KINDS: readonly [CatalogKind, (id: CatalogId) => Group][] = [
  ['schema', schemaEntity],
  ['table', tableEntity],
  ['view', viewEntity],
];

/** A new object and where a version would mean its id is held already. */
interface Probe {
  what: string;
  id: number;
  holder: string;
}

/**
 * The new schemas, tables and views of `state`, each with the kinds of object whose versions its id must not
 * have. They share one id space (DuckLake's next_catalog_id): a new one's id holds no object of another kind,
 * nor of its own kind when the transaction took the id for it — a restore, or an import, brings an object
 * back under its own id, and an older version of that same object is no collision. A new table's id holds no
 * columns either (column ids are per table, so those would be read as the new table's).
 */
function catalogProbes(state: PendingState): (Probe & { group: Group })[] {
  const out: (Probe & { group: Group })[] = [];
  const probe = (what: CatalogKind, id: CatalogId) => {
    const taken = state.newCatalogIds.has(id);
    for (const [kind, group] of CATALOG_KINDS) if (kind !== what || taken) out.push({ what, id, group: group(id), holder: `a ${kind}` });
    // A new table's columns take ids from 1 under its id: columns there would be another table's.
    if (taken && what === 'table') out.push({ what, id, group: columnsOfTable(id), holder: 'columns of another table' });
  };
  for (const [id, c] of state.schemas) if (classify(c) === 'created') probe('schema', id);
  for (const [id, c] of state.tables) if (classify(c) === 'created') probe('table', id);
  for (const [id, c] of state.views) if (classify(c) === 'created') probe('view', id);
  return out;
}

/**
 * The new files of `state` whose ids need a look, each with a prefix under which a key would mean it is held.
 * A file row is written once: a new file's id holds no data file of any table (the file→table index from
 * before decision 0068 here, the id ranges in assertFreshIds) and no delete file of its table.
 */
function fileProbes(state: PendingState): (Probe & { prefix: Key })[] {
  const out: (Probe & { prefix: Key })[] = [];
  const probe = (what: string, id: FileId, tableId: CatalogId) => {
    out.push({ what, id, prefix: fileTablePrefix(id), holder: 'a data file' });
    out.push({ what, id, prefix: groupPrefix(deleteFileEntity(tableId, id)), holder: `a delete file of table ${tableId}` });
  };
  for (const [id, c] of state.dataFiles) if (classify(c) === 'created' && !state.takenFileIds.has(id)) probe('data file', id, c.tableId);
  for (const [id, c] of state.deleteFiles) if (c.base === undefined && c.next !== null) probe('delete file', id, c.tableId);
  return out;
}

/**
 * A new object's id held already: the store's counters are behind (CORRUPT), or, in an import, the lake gives
 * one id to two objects (the lake is the argument).
 */
function taken(state: PendingState, what: string, id: number, holder: string): StrataError {
  if (state.importedAs !== undefined) {
    return new StrataError('INVALID_ARGUMENT', `the lake's ${what} ${id} at snapshot ${state.importedAs}: ${holder} holds that id already; an id names one object for good`);
  }
  return new StrataError(
    'CORRUPT',
    `a new ${what} would get ${what} id ${id}, which ${holder} already holds: the catalog's id counters are behind the ids in use ` +
      '(its store was damaged or written by a faulty writer); nothing was committed — `strata verify` reports the counters ' +
      '(counters-above-every-id); restore the store from a copy taken before the damage',
  );
}

/**
 * Throws (see taken) naming the first new object of `state` whose id another object holds in `view`. Catalog
 * objects are looked up as groups, which the version cache answers without a read once their kind was read
 * whole; files by one iterator for the commit.
 */
export async function assertFreshIds(view: ReadView, state: PendingState): Promise<void> {
  for (const p of catalogProbes(state)) if ((await view.group(p.group)).length > 0) throw taken(state, p.what, p.id, p.holder);
  const files = fileProbes(state);
  if (files.length === 0) return;
  const under = await view.anyUnder(files.map((p) => p.prefix), () => true);
  const hit = files[under.indexOf(true)];
  if (hit !== undefined) throw taken(state, hit.what, hit.id, hit.holder);
  // A data file of a commit since decision 0068 is in its commit's run of ids.
  const inRuns = await q.heldByRuns(view, files.map((p) => p.id as FileId));
  const held = files[inRuns.indexOf(true)];
  if (held !== undefined) throw taken(state, held.what, held.id, 'a data file');
}

/** Throws CORRUPT when a data file holds an id at or above `from`, where a writer is about to claim a block of file ids. */
export async function assertFileBlockFree(view: ReadView, from: number): Promise<void> {
  const entry = await view.last(FILE_TABLE_ENTRIES.gte, FILE_TABLE_ENTRIES.lte);
  const range = await view.last(ALL_ID_RANGES.gte, ALL_ID_RANGES.lte);
  // The greatest of the two forms of the file→table index (decision 0068): ranges do not overlap, so the last holds the highest id.
  const highest = Math.max(entry === undefined ? -1 : decodeFileTableKey(entry[0]), range === undefined ? -1 : decodeIdRange(range[0], range[1]).lastId);
  if (highest < from) return;
  throw new StrataError(
    'CORRUPT',
    `a block of file ids from ${from} on was about to be claimed, but data file id ${highest} is in use: the catalog's id counters ` +
      'are behind the ids in use (its store was damaged or written by a faulty writer); nothing was committed — `strata verify` ' +
      'reports the counters (counters-above-every-id); restore the store from a copy taken before the damage',
  );
}
