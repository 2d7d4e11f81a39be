// A group is every key under one prefix that a read resolves together: the versions of one entity (a
// schema's, a table's columns), or every entity of a kind (the schemas). The version cache keeps decoded
// groups (src/kv/version-cache.ts); this module says which prefixes are groups and how a key maps to its.
import { decodeKey, type Field, type Key, keyPrefix, readU64 } from './key-codec.js';
import { Space } from './spaces.js';

/** A prefix of identifying fields within one space: `keyPrefix(space, fields)`. */
export interface Group {
  readonly space: Space;
  readonly fields: readonly Field[];
}

export const group = (space: Space, fields: readonly Field[] = []): Group => ({ space, fields });

export const groupPrefix = (g: Group): Key => keyPrefix(g.space, g.fields);

/** The group one level up (every table instead of one table): what a read-ahead reads whole. */
export const parentGroup = (g: Group): Group => ({ space: g.space, fields: g.fields.slice(0, -1) });

export interface GroupKind {
  /** How many identifying fields make up a group's prefix. */
  fields: number;
  /** Metadata, kept whatever its size and resolved from the cached group; else one table's files, kept while small. */
  metadata: boolean;
  /**
   * Which miss under the parent reads the whole parent (the neighbouring groups), for metadata; before it, a
   * miss reads its own group. Absent: never (files: decision 0049 reads them ahead its own way).
   */
  readAheadOn?: number;
}

// Metadata groups are small and resolved at random (a table's name, its row, its columns); file groups are
// one table's files, cached only while small. A process's first seven misses under a parent read their own
// groups, its eighth every group of the parent: a process that touches a few tables (a command that shows
// one, a writer committing into two) reads no other — every table's columns (10,010 versions on 1,000
// tables) cost a fresh reader's second table() 65–150 ms, every table's name and row a fresh process's
// commit into its second table 17–30 ms, where seven tables read alone cost ~1 ms — and a process that
// resolves many tables still reads them all in one scan (decision 0049). Schemas are few: read ahead at the
// second.
const metadata = (fields: number, readAheadOn = 8): GroupKind => ({ fields, metadata: true, readAheadOn });
const files: GroupKind = { fields: 1, metadata: false };

const CACHED: ReadonlyMap<Space, GroupKind> = new Map([
  [Space.Schema, metadata(1, 2)],
  [Space.Table, metadata(1)],
  [Space.View, metadata(1)],
  [Space.Column, metadata(1)], // all columns of one table
  [Space.SchemaNameIndex, metadata(1, 2)],
  [Space.RelationNameIndex, metadata(2)],
  [Space.DataFile, files], // all data files of one table
  [Space.DeleteFile, files],
]);

/** How groups of this shape are cached, or undefined if they are not. */
export function cachedKind(g: Group): GroupKind | undefined {
  const kind = CACHED.get(g.space);
  return kind?.fields === g.fields.length ? kind : undefined;
}

/** A group's name in the cache; built from the fields, so a hit never encodes a key. Names hold no NUL. */
export const groupId = (g: Group): string => `${g.space}\0${g.fields.join('\0')}`;

/** The cached group a written key belongs to, if its space is cached by group. */
export function cachedGroupOf(key: Key): { id: string; parentId: string; kind: GroupKind } | undefined {
  const space = key[0] as Space;
  const kind = CACHED.get(space);
  if (kind === undefined) return undefined;
  const g = { space, fields: decodeKey(key).fields.slice(0, kind.fields) };
  return { id: groupId(g), parentId: groupId(parentGroup(g)), kind };
}

/**
 * Point values written once and never rewritten (a snapshot's row and its changes): cached by key when an
 * entry writes them and when read from the newest state, dropped when deleted (excision). Both are keyed by
 * the snapshot id alone (`[space][id]`), so a point is found by its space byte and that number, with no
 * string built per lookup (a reader's open looks up two).
 */
const IMMUTABLE_POINTS: ReadonlySet<Space> = new Set([Space.Snapshot, Space.SnapshotChanges]);

export function isImmutablePoint(key: Key): boolean {
  return IMMUTABLE_POINTS.has(key[0] as Space);
}

export const pointSpace = (key: Key): number => key[0]!;
export const pointId = (key: Key): number => readU64(key, 1);
