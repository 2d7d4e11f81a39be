// Tags: named, immutable pins on snapshots, written by system entries (they advance the kv sequence, not the
// snapshot id). A tag keeps its snapshot readable through retain-from and excision.
import type { SnapshotId } from '../../keys/ids.js';
import { dropTag, putTag } from '../../keys/retention.js';
import { checkName, shown } from '../arguments.js';
import { StrataError } from '../errors.js';
import { checkTagNameReadsAsTag } from '../snapshot-names.js';
import { noSuchTag } from '../messages.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { RESERVED_TAGS, resolveSnapshot } from '../read/resolve-snapshot.js';
import type { Committer } from './committer.js';
import type { Limits } from './open.js';

export class SnapshotTags {
  constructor(
    private readonly committer: Committer,
    private readonly limits: Limits,
    private readonly clock: () => number,
    private readonly assertWritable: () => void,
  ) {}

  async create(name: string, snapshot: number): Promise<void> {
    checkName('tag name', name);
    checkTagNameReadsAsTag(name);
    if (RESERVED_TAGS.has(name)) {
      throw new StrataError('INVALID_ARGUMENT', `${JSON.stringify(name)} is a reserved tag name (it always means the ${name} snapshot); choose another`);
    }
    if (typeof snapshot !== 'number') {
      throw new StrataError('INVALID_ARGUMENT', `createTag(${JSON.stringify(name)}, snapshot) needs the snapshot id to pin; got ${shown(snapshot)} (it never defaults to the newest)`);
    }
    this.assertWritable();
    await this.committer.writeSystem(async (view) => {
      if ((await q.tag(view, name)) !== undefined) {
        throw new StrataError('ALREADY_EXISTS', `tag ${JSON.stringify(name)} already exists; tags are immutable: drop it first to move it`);
      }
      const { id } = await resolveSnapshot(view, { snapshot }, { previousWalkLimit: this.limits.previousWalkLimit });
      let count = 0;
      for await (const _ of q.tags(view)) count++;
      if (count >= this.limits.maxTags) {
        throw new StrataError(
          'INVALID_ARGUMENT',
          `the catalog already has ${count} tags, its limit; drop tags no longer needed, or open it with a higher maxTags`,
        );
      }
      return { mutations: [putTag(name, { snapshot: id, createdAt: this.clock() })], value: undefined };
    });
  }

  async drop(name: string): Promise<void> {
    checkName('tag name', name);
    this.assertWritable();
    await this.committer.writeSystem(async (view) => {
      if ((await q.tag(view, name)) === undefined) {
        throw new StrataError('TAG_NOT_FOUND', noSuchTag(name));
      }
      return { mutations: [dropTag(name)], value: undefined };
    });
  }

  async list(view: ReadView): Promise<{ name: string; snapshot: SnapshotId; createdAt: Date }[]> {
    const out = [];
    for await (const t of q.tags(view)) out.push({ name: t.name, snapshot: t.snapshot, createdAt: new Date(t.createdAt) });
    return out;
  }
}
