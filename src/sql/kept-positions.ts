// Delete files' positions kept in the executor's memory, in one table, so that a statement over a table that
// has seen DELETEs does not open every delete file again: a table with a delete file per data file read its
// 1,000 delete files in each statement (LIMIT 5 over 1,000 files: 80 ms against 21 with them kept). A delete
// file's bytes never change under its identity (its key, size and CRC), so what was read once stands. What is
// kept is bounded (`budget` positions); past it, the least recently used files go, never one a statement
// holds, and a file that does not fit is read from its Parquet as before (decision 0052).
import type { DuckDBConnection } from '@duckdb/node-api';
import { DELETE_FILE, deleteRowsOf, wholePosition } from './delete-positions.js';
import { type Connections, run } from './engine.js';
import { literal } from './sql-text.js';
import { randomHex } from '../random.js';

/**
 * What one kept position costs DuckDB: its slot and position, ~23 bytes a row in its accounting
 * (duckdb_memory(), 2M positions: 45 MiB).
 */
const BYTES_PER_POSITION = 24;

/** Positions kept under a DuckDB memory limit of `memoryLimit` bytes: an eighth of it (192 MiB: ~1M positions). */
export const keptPositionsBudget = (memoryLimit: number) => Math.floor(memoryLimit / 8 / BYTES_PER_POSITION);

/** A delete file to keep: what names its bytes, where DuckDB reads it, and how many positions its record says it holds. */
export interface KeptFile {
  identity: string;
  local: string;
  deleteCount: number;
}

/** Kept files a statement uses, each by its slot in the table; none of them goes until `release()`. */
export interface Holding {
  /** The slot of each held file, by identity (a file not kept has none). */
  readonly slots: ReadonlyMap<string, number>;
  release(): void;
}

interface Entry {
  slot: number;
  size: number;
  /** Statements (and loads) holding the file: it is not evicted while any does. */
  pins: number;
  /** Settles once its positions are in the table: true, or false where they could not be read. */
  loaded: Promise<boolean>;
}

export class KeptPositions {
  /**
   * The table: random per process, as the statement placeholder is, so that no text a caller writes names it
   * (a statement's table references are the catalog's in any case: query.ts binds every one). Named in full:
   * a statement that loads host rows or writes runs with a scratch database of its own in use (scratch.ts).
   */
  readonly table = `memory.main.__strata_${randomHex(6)}_deleted`;
  private created: Promise<void> | undefined;
  /** Kept files in least recently used order (re-inserted on each use). */
  private readonly entries = new Map<string, Entry>();
  private size = 0;
  /** Slots are never reused: a statement that outlived its file's eviction could not read another's positions under its slot. */
  private nextSlot = 0;
  /** Files whose load failed (not a delete file DuckDB reads, or one whose positions are not numbers). */
  private readonly unkept = new Set<string>();
  /**
   * Files evicted or forgotten whose rows are still in the table: deleted by a load once no statement holds
   * them (a statement that holds one reads its rows under its slot until it ends).
   */
  private retired: Entry[] = [];

  constructor(
    private readonly engine: Connections,
    /** At most this many positions kept, save those of files statements hold. */
    private readonly budget: number,
  ) {}

  /** Positions kept now, for tests and statistics. */
  get positions(): number {
    return this.size;
  }

  /**
   * Holds `files`, loading those not kept yet that fit (evicting unheld ones least recently used first);
   * `c` is the connection to load on (one of the caller's, when it has one). Files that could not be kept
   * have no slot: the caller reads them from their Parquet.
   */
  async hold(files: readonly KeptFile[], c?: DuckDBConnection): Promise<Holding> {
    const held: [string, Entry][] = [];
    const fresh: { file: KeptFile; entry: Entry; done: (ok: boolean) => void }[] = [];
    for (const file of files) {
      let entry = this.entries.get(file.identity);
      if (entry !== undefined) {
        this.entries.delete(file.identity);
        this.entries.set(file.identity, entry);
      } else {
        if (this.unkept.has(file.identity) || file.deleteCount > this.budget || !this.makeRoom(file.deleteCount)) continue;
        let done!: (ok: boolean) => void;
        entry = { slot: this.nextSlot++, size: file.deleteCount, pins: 0, loaded: new Promise((resolve) => (done = resolve)) };
        this.entries.set(file.identity, entry);
        this.size += entry.size;
        fresh.push({ file, entry, done });
      }
      entry.pins++;
      held.push([file.identity, entry]);
    }
    if (fresh.length > 0) await this.load(fresh, c);
    const slots = new Map<string, number>();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const [, e] of held) e.pins--;
    };
    for (const [identity, e] of held) {
      if (await e.loaded) slots.set(identity, e.slot);
    }
    return { slots, release };
  }

  /**
   * Forgets a file whose positions turned out wrong (its check failed): it is loaded afresh if ever asked for
   * again. Its rows go with the next load once no statement holds it.
   */
  forget(identity: string): void {
    const e = this.entries.get(identity);
    if (e === undefined) return;
    this.drop(identity, e);
    this.retired.push(e);
  }

  /**
   * Evicts unheld files, least recently used first, until `size` more positions fit; false, evicting
   * nothing, if they cannot. The evicted rows are deleted by the load that follows.
   */
  private makeRoom(size: number): boolean {
    let freed = 0;
    for (const e of this.entries.values()) if (e.pins === 0) freed += e.size;
    if (this.size - freed + size > this.budget) return false;
    for (const [identity, e] of this.entries) {
      if (this.size + size <= this.budget) break;
      if (e.pins > 0) continue;
      this.drop(identity, e);
      this.retired.push(e);
    }
    return true;
  }

  /** A file whose positions could not be loaded is not tried again: the statements read it from its Parquet. */
  private refuse(identity: string, e: Entry): void {
    this.drop(identity, e);
    this.unkept.add(identity);
  }

  private drop(identity: string, e: Entry): void {
    if (this.entries.get(identity) !== e) return;
    this.entries.delete(identity);
    this.size -= e.size;
  }

  /**
   * Loads fresh files' positions in one read; a file that fails it is loaded alone, or not kept, and a load
   * that fails as a whole keeps none of them this time: each is then read from its Parquet, which says what
   * is wrong with it, if anything.
   */
  private async load(fresh: { file: KeptFile; entry: Entry; done: (ok: boolean) => void }[], given: DuckDBConnection | undefined): Promise<void> {
    const work = async (c: DuckDBConnection) => {
      await this.create(c);
      // Taken before the delete is awaited: a load that starts meanwhile must not delete the same rows (two
      // deletes of one row at once: DuckDB's "conflict on tuple deletion"); put back if it fails.
      const gone = this.retired.filter((e) => e.pins === 0);
      if (gone.length > 0) {
        this.retired = this.retired.filter((e) => !gone.includes(e));
        await run(() => c.run(`DELETE FROM ${this.table} WHERE slot IN (${gone.map((e) => e.slot).join(', ')})`)).catch((e: unknown) => {
          this.retired.push(...gone);
          throw e;
        });
      }
      const insert = (batch: typeof fresh) => {
        const slots = batch.map((f) => `(${literal(f.file.local)}, ${f.entry.slot})`).join(', ');
        return run(() =>
          c.run(
            `INSERT INTO ${this.table} SELECT v.s, ${wholePosition('x.pos')} FROM ${deleteRowsOf(batch.map((f) => f.file.local))} AS x ` +
              `JOIN (VALUES ${slots}) AS v(l, s) ON v.l = x.${DELETE_FILE}`,
          ),
        );
      };
      try {
        await insert(fresh);
        for (const f of fresh) f.done(true);
      } catch {
        // One file's own failure (not Parquet, a position that is no whole number) keeps it out for good.
        for (const f of fresh) {
          const ok = await insert([f]).then(() => true, () => false);
          if (!ok) this.refuse(f.file.identity, f.entry);
          f.done(ok);
        }
      }
    };
    try {
      await (given === undefined ? this.engine.withConnection(work) : work(given));
    } catch {
      // Not the files' own failure (the table, the connection): none is kept this time; a later statement tries again.
      for (const f of fresh) {
        this.drop(f.file.identity, f.entry);
        f.done(false);
      }
    }
  }

  private create(c: DuckDBConnection): Promise<void> {
    if (this.created === undefined) {
      const created = run(() => c.run(`CREATE TABLE ${this.table} (slot INTEGER NOT NULL, pos BIGINT)`)).then(() => undefined);
      this.created = created;
      created.catch(() => {
        if (this.created === created) this.created = undefined; // tried again by the next load
      });
    }
    return this.created;
  }
}
