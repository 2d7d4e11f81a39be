// This writer's blocks of catalog and file ids. A block is claimed by a system entry that moves the id
// horizon past it, so no other writer — in this process or any other — ever hands out an id in it, and an
// id a transaction handed to its caller can be committed as it is, however the commit is rebased (docs/DESIGN.md §6,
// "Ids are stable"; docs/decisions/0009). Ids left in a block when the process ends are never used.
import { decodeIdHorizon, ID_HORIZON_KEY, type IdHorizonRow, putIdHorizon } from '../../keys/system.js';
import { StrataError } from '../errors.js';
import type { ReadView } from '../kv/read-view.js';
import * as q from '../read/catalog-queries.js';
import { assertFileBlockFree } from '../txn/fresh-ids.js';
import type { IdKind, IdSource } from '../txn/ids.js';
import type { Committer } from './committer.js';

/**
 * The first block of each kind, doubling with each claim up to the last: a process that registers one file
 * claims little, one that registers 100,000 claims a dozen times.
 */
const FIRST_BLOCK = 64;
const LARGEST_BLOCK = 65_536;

const KINDS: readonly IdKind[] = ['catalog', 'file'];

interface Block {
  next: number;
  end: number;
  size: number;
}

/** The horizon as the index has it; a store written before blocks existed starts it at the head's counters. */
export async function idHorizon(view: ReadView): Promise<IdHorizonRow> {
  const head = (await q.headSnapshot(view)).row;
  const claimed = decodeIdHorizon(await view.get(ID_HORIZON_KEY));
  return { catalog: Math.max(claimed?.catalog ?? 0, head.nextCatalogId), file: Math.max(claimed?.file ?? 0, head.nextFileId) };
}

export class IdBlocks implements IdSource {
  private readonly blocks: Record<IdKind, Block> = {
    catalog: { next: 0, end: 0, size: FIRST_BLOCK },
    file: { next: 0, end: 0, size: FIRST_BLOCK },
  };
  /** The claim in flight: transactions that run out meanwhile wait for it rather than claim again. */
  private claiming: Promise<void> | undefined;

  constructor(private readonly committer: Committer) {}

  async take(kind: IdKind, n: number): Promise<number[]> {
    const out: number[] = [];
    while (out.length < n) {
      const b = this.blocks[kind];
      while (out.length < n && b.next < b.end) out.push(b.next++);
      if (out.length < n) await (this.claiming ??= this.claim(kind, n - out.length).finally(() => (this.claiming = undefined)));
    }
    return out;
  }

  /**
   * Ids from the blocks in hand only, for a rebase: it runs under the writer lock, where no claim can be
   * written. A replay takes again the ids its first run took, so it needs new ones only when the newer
   * state asks for more (a restore that brings back more files).
   */
  readonly inHand: IdSource = {
    take: async (kind, n) => {
      const b = this.blocks[kind];
      if (b.end - b.next < n) {
        throw new StrataError(
          'CONFLICT',
          `on the newer state this transaction needs ${n} new ${kind} ids, more than this writer holds; nothing was written — run the transaction again`,
        );
      }
      return Array.from({ length: n }, () => b.next++);
    },
  };

  /** Claims a new block of every kind that is used up (at least `wanted` ids of `kind`), in one system entry. */
  private async claim(kind: IdKind, wanted: number): Promise<void> {
    const sizes = new Map<IdKind, number>();
    for (const k of KINDS) {
      const b = this.blocks[k];
      if (k === kind || b.next >= b.end) sizes.set(k, Math.max(b.size, k === kind ? wanted : 0));
    }
    const from = await this.committer.writeSystem(async (view) => {
      const horizon = await idHorizon(view);
      if (sizes.has('file')) await assertFileBlockFree(view, horizon.file);
      const moved = { ...horizon };
      for (const [k, size] of sizes) moved[k] += size;
      return { mutations: [putIdHorizon(moved)], value: horizon };
    });
    for (const [k, size] of sizes) {
      this.blocks[k] = { next: from[k], end: from[k] + size, size: Math.min(LARGEST_BLOCK, this.blocks[k].size * 2) };
    }
  }
}
