// The index's writes that have not landed yet. An entry is durable once the commit log holds it; its LevelDB
// batch is what makes it readable from the index's files, and every LevelDB write is a hand-off to a libuv
// worker (~150–300 µs on a 2-core VM, most of it waking the worker and then this thread, not LevelDB's
// work). So an entry that only puts is applied in memory (the version cache, the timeline, the applied
// sequence) and its batch lands afterwards, while the next transaction runs; views opened meanwhile read
// the frozen LevelDB state with the unlanded puts merged in (read-view.ts), which is exactly the state the
// entries leave. Batches land in order, one at a time: the entries
// that queue up while one is written go into the next, as one batch.
import type { KvSeq } from '../../keys/ids.js';
import { type Key, keyId } from '../../keys/key-codec.js';
import type { Mutation } from '../../keys/mutation.js';
import { APPLIED_SEQ_KEY, APPLIED_TXN_KEY, encodeSeq, encodeTxn } from '../../keys/system.js';
import { PutSet } from './put-set.js';
import type { Db } from './read-view.js';

/** An entry too large to overlay cheaply (an overlay is sorted per state) is written and awaited instead. */
export const MAX_UNLANDED_MUTATIONS = 4096;


interface Entry {
  seq: KvSeq;
  txn: string;
  mutations: readonly Mutation[];
  /** Its puts by keyId, made once: every view opened before it lands looks in them. */
  keyed: Map<string, [Key, Uint8Array]>;
}

export class UnlandedWrites {
  /** The entries of the batch being written. */
  private writing: Entry[] = [];
  /** Entries applied since that batch was submitted: the next batch. */
  private waiting: Entry[] = [];
  private count = 0;
  private puts: PutSet | undefined;
  private failure: Error | undefined;
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor(
    private readonly db: Db,
    /** Wraps a failed write as the index's own error (LocalIndexError), naming what was written. */
    private readonly failed: (what: string, e: unknown) => Error,
    /** Told once, when a batch fails: nothing written after it lands, and every later read fails. */
    private readonly onFailure: (e: Error) => void,
  ) {}

  /** Whether every applied entry has landed. */
  get empty(): boolean {
    return this.writing.length === 0 && this.waiting.length === 0;
  }

  /** How many entries are unlanded. */
  get entries(): number {
    return this.writing.length + this.waiting.length;
  }

  /** How many mutations are unlanded, for the caller's bound. */
  get mutations(): number {
    return this.count;
  }

  /** The write that failed, if one did: the index is behind the log until it is opened again. */
  check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Queues an applied entry's batch (puts only: an overlay cannot hide a key). */
  push(seq: KvSeq, txn: string, mutations: readonly Mutation[]): void {
    this.check();
    const keyed = new Map<string, [Key, Uint8Array]>();
    for (const m of mutations) if (m.type === 'put') keyed.set(keyId(m.key), [m.key, m.value]);
    this.waiting.push({ seq, txn, mutations, keyed });
    this.count += mutations.length;
    this.puts = undefined;
    if (this.writing.length === 0) this.submit();
  }

  /** Resolves once every entry applied so far has landed; rejects with the failure if one did not. */
  settled(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.empty) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** The newest unlanded value of `key`, if an unlanded entry put one. */
  get(key: Key): Uint8Array | undefined {
    return this.empty ? undefined : this.putSet().get(key);
  }

  /** Every unlanded put, the later of two puts of one key winning. */
  putSet(): PutSet {
    this.puts ??= new PutSet([...this.writing, ...this.waiting].map((e) => e.keyed));
    return this.puts;
  }

  private submit(): void {
    this.writing = this.waiting;
    this.waiting = [];
    const last = this.writing.at(-1)!;
    entryBatch(this.db, this.writing.flatMap((e) => e.mutations), last.seq, last.txn).write({ sync: false }).then(
      () => {
        for (const e of this.writing) this.count -= e.mutations.length;
        this.writing = [];
        this.puts = undefined;
        if (this.waiting.length > 0) return this.submit();
        for (const w of this.waiters.splice(0)) w.resolve();
      },
      (e: unknown) => {
        const first = this.writing[0]!.seq;
        this.failure = this.failed(last.seq === first ? `log entry ${first}` : `log entries ${first}–${last.seq}`, e);
        this.onFailure(this.failure);
        for (const w of this.waiters.splice(0)) w.reject(this.failure);
      },
    );
  }
}

/** One LevelDB batch of `mutations` that also records `seq` (written as `txn`) as the applied entry. */
export function entryBatch(db: Db, mutations: readonly Mutation[], seq: KvSeq, txn: string): ReturnType<Db['batch']> {
  const batch = db.batch();
  for (const m of mutations) {
    if (m.type === 'put') batch.put(m.key, m.value);
    else batch.del(m.key);
  }
  return batch.put(APPLIED_SEQ_KEY, encodeSeq(seq)).put(APPLIED_TXN_KEY, encodeTxn(txn));
}
