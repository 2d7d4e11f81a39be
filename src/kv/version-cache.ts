// Decoded versions of catalog metadata (schemas, tables, views, columns and their name indexes), kept in
// memory by group: a group is every version under one key prefix that a read resolves together.
//
// Why a cache that is shared by readers at different snapshots is correct: history is immutable. What is
// visible at a committed snapshot S never changes — later commits only add versions that begin after S and
// set `end`s that lie after S — so a group read from any state that contains S answers every question about
// S identically. The one thing the cache must never hold is a group that is *older* than some reader's view:
//   - every applied entry invalidates the groups it touches *before* its batch is written, and
//   - a group is stored only when it was read from the newest applied state with no apply in flight.
// Excision (which removes versions) goes through the same apply path, and reads below retain-from are refused.
import type { KvSeq } from '../../keys/ids.js';
import { decodeKey, type Key, keyPrefix } from '../../keys/key-codec.js';
import { Tag } from '../../keys/tags.js';
import type { Mutation } from './kv-store.js';

/** For each cached tag, how many identifying fields make up a group's prefix. */
const GROUP_FIELDS: ReadonlyMap<Tag, number> = new Map([
  [Tag.Schema, 1],
  [Tag.Table, 1],
  [Tag.View, 1],
  [Tag.Column, 1], // all columns of one table
  [Tag.SchemaNameIndex, 1],
  [Tag.RelationNameIndex, 2],
]);

export interface CachedVersion {
  readonly key: Key;
  /** The key's identifying fields, decoded once. */
  readonly fields: readonly (number | string)[];
  readonly begin: number;
  readonly row: unknown;
}

export const groupId = (prefix: Key): string => Buffer.from(prefix.buffer, prefix.byteOffset, prefix.length).toString('latin1');

export function isCachedGroup(tag: Tag, fieldCount: number): boolean {
  return GROUP_FIELDS.get(tag) === fieldCount;
}

export class VersionCache {
  private readonly groups = new Map<string, readonly CachedVersion[]>();
  private applying = 0;

  constructor(
    /** The newest applied sequence: groups are stored only from views of exactly this state. */
    private latest: KvSeq,
    private readonly capacity = 50_000,
  ) {}

  get(id: string): readonly CachedVersion[] | undefined {
    const hit = this.groups.get(id);
    if (hit !== undefined) {
      // Least recently used goes first: re-inserting moves a hit to the end.
      this.groups.delete(id);
      this.groups.set(id, hit);
    }
    return hit;
  }

  offer(id: string, versions: readonly CachedVersion[], viewSeq: KvSeq): void {
    if (this.applying > 0 || viewSeq !== this.latest) return;
    this.groups.set(id, versions);
    if (this.groups.size > this.capacity) this.groups.delete(this.groups.keys().next().value!);
  }

  /** Before an entry's batch is written: forget every group it touches, and store nothing until it is done. */
  beginApply(mutations: readonly Mutation[]): void {
    this.applying++;
    for (const m of mutations) {
      const n = GROUP_FIELDS.get(m.key[0] as Tag);
      if (n === undefined) continue;
      this.groups.delete(groupId(keyPrefix(m.key[0] as Tag, decodeKey(m.key).fields.slice(0, n))));
    }
  }

  endApply(applied: KvSeq | undefined): void {
    this.applying--;
    if (applied !== undefined) this.latest = applied;
  }
}
