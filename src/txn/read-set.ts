// What a transaction's function read of the state it ran on. A process that did not ask the store what was
// new before the function ran (decision 0057) ran it on its own newest state, which other writers' commits may
// have passed; when its commit then loses the race, those commits are held against what the function read, and
// one that changed it is a conflict: the function computed its writes from a state that was no longer the
// newest. Kept at the grain of DuckLake's conflict rules — a table's definition, a table's contents, a
// relation's name, a schema's listing — so that what commutes there (inserts into a table whose columns the
// function read) still commutes.
import type { CatalogId } from '../../keys/ids.js';
import { quote } from '../messages.js';
import type { Footprint } from './conflicts.js';

export class ReadSet {
  /** Tables and views whose definition (name, columns, view text) the function read, with their names. */
  readonly definitions = new Map<CatalogId, string>();
  /** Tables whose contents (data files, delete files, their statistics) it read, with their names. */
  readonly contents = new Map<CatalogId, string>();
  /** Relations it looked up by name, found or not, as `"schema"."name"`. */
  readonly names = new Set<string>();
  /** Schemas whose tables or views it listed, as `"schema"`. */
  readonly listedSchemas = new Set<string>();
  /** Schemas it looked up by name, as `"schema"`, with the id found (undefined: none). */
  readonly schemas = new Map<string, CatalogId | undefined>();
  /** Whether it listed the schemas. */
  schemasListed = false;
  /**
   * What it learnt other than through a read: an operation refused on this state (its failure caught, the
   * function went on), the base snapshot's id. Any other commit may change either.
   */
  readonly learnt = new Set<string>();

  get empty(): boolean {
    return (
      this.definitions.size === 0 &&
      this.contents.size === 0 &&
      this.names.size === 0 &&
      this.listedSchemas.size === 0 &&
      this.schemas.size === 0 &&
      !this.schemasListed &&
      this.learnt.size === 0
    );
  }

  /** A lookup of schema `name` that found `id` (undefined: found none). */
  lookedUpSchema(name: string, id?: CatalogId): void {
    this.schemas.set(quote(name), id);
  }

  /** A lookup of relation `name` in `schema` (found or not: a miss is read too), and what it found. */
  lookedUp(schema: string, name: string, found?: { id: CatalogId; files: boolean }): void {
    const quoted = quote(schema, name);
    this.names.add(quoted);
    if (found === undefined) return;
    this.definitions.set(found.id, quoted);
    if (found.files) this.contents.set(found.id, quoted);
  }

  /** A listing of the relations of `schema` that found these. */
  listed(schema: string, found: readonly { id: CatalogId; name: string }[]): void {
    this.listedSchemas.add(quote(schema));
    for (const { id, name } of found) this.definitions.set(id, quote(schema, name));
  }
}

/**
 * What of `reads` a commit whose footprint is `theirs` changed: what was read and what the commit did to it
 * (said of "it"); undefined when nothing.
 */
export function changedRead(reads: ReadSet, theirs: Footprint): { read: string; change: string } | undefined {
  for (const [set, verb] of CONTENT_CHANGES) {
    for (const [id, name] of reads.contents) if (theirs[set].has(id)) return { read: `the files of table ${name}`, change: `${verb} it` };
  }
  for (const [set, verb] of DEFINITION_CHANGES) {
    for (const [id, name] of reads.definitions) if (theirs[set].has(id)) return { read: `the definition of ${name}`, change: `${verb} it` };
  }
  for (const r of theirs.createdRelations) {
    if (reads.names.has(r)) return { read: `the name ${r}`, change: 'gave it to a new table or view' };
    const schema = r.slice(0, r.indexOf('"."') + 1);
    if (reads.listedSchemas.has(schema)) return { read: `the tables and views of schema ${schema}`, change: `added ${r} to them` };
  }
  // A rename is an alteration, which says the table's id and not its new name: any may have taken a name
  // that was looked up and not found.
  if (theirs.alteredTables.size > 0) {
    const found = new Set(reads.definitions.values());
    const missed = [...reads.names].find((n) => !found.has(n));
    if (missed !== undefined) return { read: `the name ${missed}, which named nothing`, change: 'altered a table, which may have renamed it so' };
  }
  for (const [name, id] of reads.schemas) {
    if (theirs.createdSchemas.has(name) || (id !== undefined && theirs.droppedSchemas.has(id))) return { read: `the schema ${name}`, change: 'created or dropped it' };
  }
  if (reads.schemasListed && (theirs.createdSchemas.size > 0 || theirs.droppedSchemas.size > 0)) return { read: 'the list of schemas', change: 'changed it' };
  const [learnt] = reads.learnt;
  if (learnt !== undefined && changedAnything(theirs)) return { read: learnt, change: 'changed the catalog' };
  return undefined;
}

function changedAnything(f: Footprint): boolean {
  return Object.values(f).some((set: ReadonlySet<unknown>) => set.size > 0);
}

/**
 * A compaction is left out: it rewrites files without changing a row, and a function that acted on the files
 * it listed (removed one, deleted from one) meets it in DuckLake's rules for its writes.
 */
type IdSet = 'insertedTables' | 'deletedTables' | 'restoredTables' | 'droppedTables' | 'alteredTables' | 'droppedViews';

const CONTENT_CHANGES: readonly [IdSet, string][] = [
  ['insertedTables', 'inserted into'],
  ['deletedTables', 'deleted from'],
  ['restoredTables', 'restored'],
  ['droppedTables', 'dropped'],
];

const DEFINITION_CHANGES: readonly [IdSet, string][] = [
  ['alteredTables', 'altered'],
  ['droppedTables', 'dropped'],
  ['droppedViews', 'dropped'],
];
