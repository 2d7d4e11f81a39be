// Random sequences of public calls — hostile names, wrong types, NaN, negative and huge numbers, unknown ids
// and snapshots, option typos, failures left unobserved inside transactions, concurrent transactions, a close
// in the middle of reads — against a model of the catalog. Every call either does what the model says, or
// throws a StrataError with one of the codes the model allows (always one of docs/DESIGN.md §6's); after every
// sequence, each snapshot reads as the model recorded it (tables, column names and types, files and their
// record counts) and verify finds nothing.
//
// A failure prints fast-check's seed and path: FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz
// replays it (FUZZ_RUNS sets how many sequences; 500 by default).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Catalog, isStrataError, type StrataError } from '../../src/index.js';
import { tempDir } from '../helpers.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const replay = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) };

const CODES = new Set([
  'SNAPSHOT_NOT_FOUND', 'BEFORE_FIRST_SNAPSHOT', 'OUT_OF_RETENTION', 'NOT_FOUND', 'ALREADY_EXISTS', 'DEPENDENT_OBJECTS', 'CONFLICT',
  'TAG_NOT_FOUND', 'NO_PREVIOUS_VERSION', 'WALK_LIMIT_EXCEEDED', 'INVALID_ARGUMENT', 'FENCED', 'CORRUPT', 'READ_ONLY', 'STORE_UNAVAILABLE',
]);

// ---- the model

interface MTable {
  columns: string[];
  types: string[];
  /** Live data files: id → path and record count. */
  files: Map<number, string>;
  records: Map<number, number>;
}
type MState = Map<string, Map<string, MTable>>;

const clone = (s: MState): MState =>
  new Map([...s].map(([n, ts]) => [n, new Map([...ts].map(([t, v]) => [t, { columns: [...v.columns], types: [...v.types], files: new Map(v.files), records: new Map(v.records) }]))]));
/** A small number (below 40) picks one of the table's live files, when it has any; anything else is the id given. */
const liveFile = (t: MTable | undefined, raw: unknown): unknown => {
  const live = [...(t?.files.keys() ?? [])];
  return typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < 40 && live.length > 0 ? live[raw % live.length]! : raw;
};
const newTable = (columns: { name: string; type: string }[]): MTable => ({ columns: columns.map((c) => c.name), types: columns.map((c) => c.type), files: new Map(), records: new Map() });

/** The changes of type the pool's types allow (DuckLake's widening rules); a type to itself changes nothing. */
const WIDENS = new Set(['int32>int64']);

class Model {
  head: MState = new Map([['main', new Map()]]);
  readonly history: MState[] = [clone(this.head)];
  readonly tags = new Map<string, number>();
  paths = 0;

  commit(next: MState): void {
    this.head = next;
    this.history.push(clone(next));
  }

  get newest(): number {
    return this.history.length - 1;
  }
}

// ---- inputs: valid ones drawn from small pools (so calls meet), hostile ones from everything else

const NAMES = ['s1', 't1', 'Ä', '名前', '..', 'a/b', 'x y', '7', '2026-01-01'];
const HOSTILE_NAMES: unknown[] = ['', 'n'.repeat(10_000), 'a\u0000b', 'lone\uD800', '\uDC00', 42, null, undefined, {}, ['t1'], Number.NaN];
const nameValid = (n: unknown): n is string => typeof n === 'string' && n.length > 0 && n.length <= 255 && !n.includes('\u0000') && n.isWellFormed();
/** A tag's name must not read as a snapshot id (a number) or a time (a date) where snapshots are named. */
const tagNameValid = (n: unknown): n is string => nameValid(n) && !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(n) && !/^\d{4}-\d{2}-\d{2}/.test(n);
/** What the catalog takes as a count or id: a safe integer of at least `min`. */
const isCount = (n: unknown, min = 0): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= min;

const anyName = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...NAMES) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_NAMES) });
/** Most often main, where tables are made, so that calls on tables and their files meet them. */
const anySchema = fc.oneof({ weight: 3, arbitrary: fc.constant('main') }, { weight: 2, arbitrary: anyName });
/** Most often one of two names, so that a table made is met again. */
const anyTable = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('t1', '名前') }, { weight: 2, arbitrary: anyName });
const HOSTILE_NUMBERS: unknown[] = [-1, Number.NaN, 1.5, 2 ** 60, Number.POSITIVE_INFINITY, '3', null, {}];
const anyCount = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 10_000 }) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) });
const HOSTILE_PATHS: unknown[] = ['', '/abs.parquet', '../up.parquet', 'a/../b.parquet', 's3://bucket/k', '.hidden.parquet', 'a//b.parquet', 'nul\u0000.parquet', `${'s'.repeat(300)}.parquet`, 'lone\uD800.parquet', 'tab\t.parquet', 7, null];
/** null: a fresh valid path, three times in four. */
const anyPath = fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_PATHS) });
const COLUMNS: unknown[] = [
  [{ name: 'a', type: 'int32' }],
  [{ name: 'a', type: 'int64' }, { name: 'b', type: 'varchar' }],
  [{ name: 'a', type: 'no_such_type' }],
  [{ name: 'a', type: 'int32' }, { name: 'a', type: 'int32' }],
  [{ name: '', type: 'int32' }],
  [{ name: 'a', type: 'int32', colour: 'red' }],
  'a int',
  null,
];
const validColumns = (c: unknown): c is { name: string }[] => c === COLUMNS[0] || c === COLUMNS[1];

const op = fc.oneof(
  fc.record({ kind: fc.constant('createSchema' as const), name: anyName }),
  fc.record({ kind: fc.constant('dropSchema' as const), name: anyName, cascade: fc.boolean() }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('createTable' as const), schema: anySchema, name: anyTable, columns: fc.oneof(fc.constantFrom(...COLUMNS.filter(validColumns)), fc.constantFrom(...COLUMNS)) }) },
  fc.record({ kind: fc.constant('dropTable' as const), schema: anySchema, name: anyTable }),
  fc.record({ kind: fc.constant('renameTable' as const), schema: anySchema, name: anyTable, to: anyTable }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('addDataFile' as const),
      schema: anySchema,
      name: anyTable,
      path: anyPath,
      recordCount: anyCount,
      fileSizeBytes: anyCount,
      // Every choice from fast-check, none from Math.random: a seed and path replay a sequence exactly.
      extraKey: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  fc.record({
    kind: fc.constant('addDataFiles' as const),
    schema: anySchema,
    name: anyTable,
    // Mostly good files; any bad one refuses the whole call.
    files: fc.array(fc.record({ path: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: anyPath }), recordCount: anyCount, fileSizeBytes: anyCount }), { maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('removeDataFile' as const), schema: anySchema, name: anyTable, id: fc.oneof(fc.nat({ max: 40 }), fc.constantFrom(...HOSTILE_NUMBERS, 999_999)) }),
  fc.record({ kind: fc.constant('createTag' as const), name: anyName, snapshot: fc.oneof(fc.nat({ max: 12 }), fc.constantFrom(...HOSTILE_NUMBERS, undefined, 10 ** 9)) }),
  fc.record({
    kind: fc.constant('read' as const),
    selector: fc.oneof(
      fc.record({ snapshot: fc.oneof(fc.nat({ max: 12 }), fc.constantFrom(...HOSTILE_NUMBERS, 10 ** 9)) }),
      fc.record({ timestamp: fc.constantFrom<unknown>(0, -5, 'yesterday', 1e300, Number.NaN, '2026-13-45') }),
      fc.record({ tag: anyName }),
      fc.constant({ snapshto: 1 }),
      fc.constant(null),
      fc.constant(undefined),
    ),
  }),
  fc.record({ kind: fc.constant('typo' as const), which: fc.nat({ max: 5 }) }),
  fc.record({ kind: fc.constant('caught' as const), name: anyName, bad: fc.nat({ max: 2 }) }),
  fc.record({ kind: fc.constant('unobserved' as const), name: anyName, bad: fc.nat({ max: 2 }) }),
  fc.record({ kind: fc.constant('concurrent' as const), a: fc.constantFrom(...NAMES), b: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('changes' as const), schema: anySchema, name: anyTable, from: anyCount, to: fc.oneof(fc.nat({ max: 12 }), fc.constantFrom(...HOSTILE_NUMBERS)) }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('alterColumnType' as const), schema: anySchema, name: anyTable, column: fc.constantFrom<unknown>('a', 'b', 'zz', '', 7), type: fc.constantFrom<unknown>('int32', 'int64', 'varchar', 'no_such_type', 42) }) },
  fc.record({
    kind: fc.constant('addDeleteFile' as const),
    schema: anySchema,
    name: anyTable,
    file: fc.oneof(fc.nat({ max: 40 }), fc.constantFrom(...HOSTILE_NUMBERS, 999_999)),
    deleteCount: fc.oneof(fc.constant(1), fc.constantFrom(...HOSTILE_NUMBERS, 0, 10 ** 9)),
    path: anyPath,
  }),
  fc.record({ kind: fc.constant('snapshotsOf' as const), schema: anySchema, name: anyTable, from: fc.option(anyCount) }),
  fc.record({ kind: fc.constant('sql' as const), schema: anySchema, name: anyTable, snapshot: fc.option(fc.nat({ max: 12 })) }),
  fc.constant({ kind: 'reopen' as const }),
  fc.constant({ kind: 'closeMidRead' as const }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/**
 * Sequences, three in four of them after a valid table is made: hostile arguments fail most calls on their
 * own, and calls on files need a table to meet (without it, a few hundred sequences added no file at all).
 */
const sequences = fc
  .tuple(
    fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.constant([{ kind: 'createTable' as const, schema: 'main', name: 't1', columns: COLUMNS[0] }]) }),
    fc.array(op, { minLength: 1, maxLength: 14 }),
  )
  .map(([first, rest]): Op[] => [...first, ...rest]);

/** What a call may do: succeed (and then `apply` runs on the model), or fail with one of `codes`. */
interface Expect {
  ok: boolean;
  codes: Set<string>;
}
const ok = (): Expect => ({ ok: true, codes: new Set() });
const fails = (...codes: string[]): Expect => ({ ok: false, codes: new Set(codes) });
/** Every fault an argument list has, each allowing its code: the call reports one of them. */
function faults(checks: [boolean, string][]): Expect {
  const codes = checks.filter(([bad]) => bad).map(([, code]) => code);
  return codes.length === 0 ? ok() : fails(...codes);
}

// ---- running one call against both

async function outcome<T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await p };
  } catch (error) {
    return { error };
  }
}

function check(what: string, expected: Expect, got: { error?: unknown }): boolean {
  if (got.error === undefined) {
    if (!expected.ok) throw new Error(`${what}: succeeded, the model expected ${[...expected.codes].join(' or ')}`);
    return true;
  }
  const e = got.error as StrataError;
  if (!isStrataError(e)) throw new Error(`${what}: threw a ${(e as Error)?.constructor?.name}, not a StrataError: ${String(e)}`, { cause: e });
  if (!CODES.has(e.code)) throw new Error(`${what}: undocumented code ${e.code}: ${e.message}`);
  if (expected.ok) throw new Error(`${what}: failed with ${e.code} (${e.message}); the model expected success`);
  if (!expected.codes.has(e.code)) throw new Error(`${what}: failed with ${e.code} (${e.message}); the model expected ${[...expected.codes].join(' or ')}`);
  return false;
}

class Run {
  readonly model = new Model();
  private c!: Catalog;
  readonly log: string[] = [];

  constructor(private readonly dir: string) {}

  async open(): Promise<void> {
    this.c = await Catalog.open({ dir: this.dir, durability: 'relaxed', checkpointEvery: 0 });
  }

  async close(): Promise<void> {
    await this.c.close();
  }

  /** Runs a transaction of one operation; on success the model commits `next` (a new snapshot unless unchanged). */
  private async txn(what: string, expected: Expect, fn: Parameters<Catalog['transaction']>[0], next: () => MState | undefined): Promise<void> {
    const got = await outcome(this.c.transaction(fn));
    if (!check(what, expected, got)) return;
    const state = next();
    if (got.value!.snapshot === null) {
      if (state !== undefined) throw new Error(`${what}: committed nothing, the model expected a snapshot`);
      return;
    }
    if (state === undefined) throw new Error(`${what}: committed snapshot ${got.value!.snapshot}, the model expected nothing`);
    this.model.commit(state);
    expect(got.value!.snapshot, what).toBe(this.model.newest);
  }

  private table(schema: unknown, name: unknown): MTable | undefined {
    return typeof schema === 'string' && typeof name === 'string' ? this.model.head.get(schema)?.get(name) : undefined;
  }

  private tableFaults(schema: unknown, name: unknown): [boolean, string][] {
    return [
      [!nameValid(schema) || !nameValid(name), 'INVALID_ARGUMENT'],
      [nameValid(schema) && !this.model.head.has(schema), 'NOT_FOUND'],
      [nameValid(schema) && nameValid(name) && this.table(schema, name) === undefined, 'NOT_FOUND'],
    ];
  }

  async step(o: Op): Promise<void> {
    const what = `${this.log.length}: ${o.kind} ${JSON.stringify(o, (_k, v) => (typeof v === 'string' && v.length > 40 ? `${v.slice(0, 20)}…(${v.length})` : v))}`;
    this.log.push(what);
    const m = this.model;
    switch (o.kind) {
      case 'createSchema': {
        const e = faults([[!nameValid(o.name), 'INVALID_ARGUMENT'], [nameValid(o.name) && m.head.has(o.name), 'ALREADY_EXISTS']]);
        return this.txn(what, e, (tx) => tx.createSchema(o.name as string), () => {
          const s = clone(m.head);
          s.set(o.name as string, new Map());
          return s;
        });
      }
      case 'dropSchema': {
        const s = nameValid(o.name) ? m.head.get(o.name) : undefined;
        const e = faults([
          [!nameValid(o.name), 'INVALID_ARGUMENT'],
          [nameValid(o.name) && s === undefined, 'NOT_FOUND'],
          [s !== undefined && s.size > 0 && !o.cascade, 'DEPENDENT_OBJECTS'],
          [o.name === 'main', 'INVALID_ARGUMENT'],
        ]);
        // Dropping main may or may not be allowed; the model does not guess, it only forbids other outcomes.
        if (o.name === 'main') e.codes.add('DEPENDENT_OBJECTS');
        return this.txn(what, o.name === 'main' ? { ok: false, codes: e.codes } : e, (tx) => tx.dropSchema(o.name as string, { cascade: o.cascade }), () => {
          const next = clone(m.head);
          next.delete(o.name as string);
          return next;
        });
      }
      case 'createTable': {
        const e = faults([
          [!nameValid(o.schema) || !nameValid(o.name) || !validColumns(o.columns), 'INVALID_ARGUMENT'],
          [nameValid(o.schema) && !m.head.has(o.schema), 'NOT_FOUND'],
          [this.table(o.schema, o.name) !== undefined, 'ALREADY_EXISTS'],
        ]);
        return this.txn(what, e, (tx) => tx.createTable(o.schema as string, o.name as string, o.columns as { name: string; type: string }[]), () => {
          const next = clone(m.head);
          next.get(o.schema as string)!.set(o.name as string, newTable(o.columns as { name: string; type: string }[]));
          return next;
        });
      }
      case 'dropTable':
        return this.txn(what, faults(this.tableFaults(o.schema, o.name)), (tx) => tx.dropTable(o.schema as string, o.name as string), () => {
          const next = clone(m.head);
          next.get(o.schema as string)!.delete(o.name as string);
          return next;
        });
      case 'renameTable': {
        const e = faults([
          ...this.tableFaults(o.schema, o.name),
          [!nameValid(o.to), 'INVALID_ARGUMENT'],
          [this.table(o.schema, o.name) !== undefined && nameValid(o.to) && o.to !== o.name && this.table(o.schema, o.to) !== undefined, 'ALREADY_EXISTS'],
        ]);
        return this.txn(what, e, (tx) => tx.renameTable(o.schema as string, o.name as string, o.to as string), () => {
          if (o.to === o.name) return undefined;
          const next = clone(m.head);
          const ts = next.get(o.schema as string)!;
          ts.set(o.to as string, ts.get(o.name as string)!);
          ts.delete(o.name as string);
          return next;
        });
      }
      case 'addDataFile': {
        const path = o.path === null ? `p/${m.paths}.parquet` : o.path;
        const count = isCount;
        const e = faults([
          ...this.tableFaults(o.schema, o.name),
          [o.path !== null || !count(o.recordCount) || !count(o.fileSizeBytes) || o.extraKey, 'INVALID_ARGUMENT'],
        ]);
        let id = -1;
        const spec = { path, recordCount: o.recordCount, fileSizeBytes: o.fileSizeBytes, ...(o.extraKey ? { recordcount: 1 } : {}) };
        return this.txn(
          what,
          e,
          async (tx) => {
            id = await tx.addDataFile(o.schema as string, o.name as string, spec as { path: string; recordCount: number; fileSizeBytes: number });
          },
          () => {
            m.paths++;
            const next = clone(m.head);
            const t = next.get(o.schema as string)!.get(o.name as string)!;
            t.files.set(id, path as string);
            t.records.set(id, o.recordCount as number);
            return next;
          },
        );
      }
      case 'addDataFiles': {
        const given = o.files as { path: string | null; recordCount: unknown; fileSizeBytes: unknown }[];
        const specs = given.map((f, i) => ({ ...f, path: f.path === null ? `p/${m.paths}-${i}.parquet` : f.path }));
        const e = faults([...this.tableFaults(o.schema, o.name), [given.some((f) => f.path !== null || !isCount(f.recordCount) || !isCount(f.fileSizeBytes)), 'INVALID_ARGUMENT']]);
        let ids: number[] = [];
        return this.txn(
          what,
          e,
          async (tx) => {
            ids = await tx.addDataFiles(o.schema as string, o.name as string, specs as never);
          },
          () => {
            // An empty list changes nothing: no snapshot.
            if (specs.length === 0) return undefined;
            m.paths++;
            const next = clone(m.head);
            const t = next.get(o.schema as string)!.get(o.name as string)!;
            ids.forEach((id, i) => {
              t.files.set(id, specs[i]!.path);
              t.records.set(id, specs[i]!.recordCount as number);
            });
            return next;
          },
        );
      }
      case 'removeDataFile': {
        const t = this.table(o.schema, o.name);
        const id = liveFile(t, o.id);
        const idOk = isCount(id);
        const e = faults([...this.tableFaults(o.schema, o.name), [!idOk, 'INVALID_ARGUMENT'], [t !== undefined && idOk && !t.files.has(id), 'NOT_FOUND']]);
        return this.txn(what, e, (tx) => tx.removeDataFile(o.schema as string, o.name as string, id as number), () => {
          const next = clone(m.head);
          const tt = next.get(o.schema as string)!.get(o.name as string)!;
          tt.files.delete(id as number);
          tt.records.delete(id as number);
          return next;
        });
      }
      case 'createTag': {
        const snapOk = isCount(o.snapshot);
        const e = faults([
          [!tagNameValid(o.name) || !snapOk || o.name === 'current' || o.name === 'previous', 'INVALID_ARGUMENT'],
          [snapOk && (o.snapshot as number) > m.newest, 'SNAPSHOT_NOT_FOUND'],
          [nameValid(o.name) && m.tags.has(o.name), 'ALREADY_EXISTS'],
        ]);
        if (check(what, e, await outcome(this.c.createTag(o.name as string, o.snapshot as number)))) m.tags.set(o.name as string, o.snapshot as number);
        return;
      }
      case 'read': {
        const sel = o.selector as Record<string, unknown> | null | undefined;
        let expected: Expect;
        let at: number | undefined;
        // A key given as undefined is a key not given (JavaScript's convention): the newest snapshot.
        if (sel === undefined || (sel !== null && Object.values(sel).every((v) => v === undefined))) {
          expected = ok();
          at = m.newest;
        } else if (sel === null) expected = fails('INVALID_ARGUMENT'); // options are an object or absent, never null
        else if ('snapshto' in sel) expected = fails('INVALID_ARGUMENT');
        else if ('snapshot' in sel) {
          const s = sel.snapshot;
          const good = isCount(s);
          expected = !good ? fails('INVALID_ARGUMENT') : (s as number) > m.newest ? fails('SNAPSHOT_NOT_FOUND') : ok();
          at = good ? (s as number) : undefined;
        } else if ('timestamp' in sel) {
          const t = sel.timestamp;
          expected = t === 0 ? fails('BEFORE_FIRST_SNAPSHOT') : t === 1e300 ? ok() : fails('INVALID_ARGUMENT');
          at = m.newest;
        } else {
          const tag = sel.tag;
          const reserved = tag === 'current' || tag === 'previous';
          expected = !nameValid(tag) ? fails('INVALID_ARGUMENT') : reserved ? { ok: false, codes: new Set(['NO_PREVIOUS_VERSION']) } : m.tags.has(tag) ? ok() : fails('TAG_NOT_FOUND');
          if (reserved) expected = { ok: true, codes: new Set(['NO_PREVIOUS_VERSION']) };
          at = nameValid(tag) ? (tag === 'current' ? m.newest : m.tags.get(tag)) : undefined;
        }
        const got = await outcome(this.c.reader(sel as never));
        if (got.value === undefined && expected.ok && expected.codes.size > 0 && isStrataError(got.error) && expected.codes.has((got.error as StrataError).code)) return;
        if (!check(what, expected, got)) return;
        const r = got.value!;
        try {
          if (at !== undefined && !(sel !== undefined && sel !== null && 'tag' in sel && sel.tag === 'previous')) expect(await readState(r), what).toEqual(project(m.history[at]!));
        } finally {
          await r.close();
        }
        return;
      }
      case 'typo': {
        const c = this.c;
        const calls: (() => Promise<unknown>)[] = [
          () => c.snapshots({ tabel: { schema: 'main', table: 't1' } } as never),
          () => c.excise({ dryrun: true } as never),
          () => c.reclaimFiles({ dryrun: true, graceMs: 0 } as never),
          () => c.reader({ snapshto: 0 } as never),
          () => c.compactLog({ dryrun: true } as never),
          () => c.transaction((tx) => tx.createSchema('typo_schema'), { autor: 'me' } as never),
        ];
        check(what, fails('INVALID_ARGUMENT'), await outcome(calls[o.which]!()));
        return;
      }
      case 'caught':
      case 'unobserved': {
        // A transaction that creates schema `name` and also makes a bad call: caught, the schema commits;
        // left unobserved, nothing does and the bad call's error is the transaction's.
        const bad = [
          (tx: Parameters<Parameters<Catalog['transaction']>[0]>[0]) => tx.dropTable('no_such_schema', 'x'),
          (tx: Parameters<Parameters<Catalog['transaction']>[0]>[0]) => tx.createTable('main', '', [{ name: 'a', type: 'int32' }]),
          (tx: Parameters<Parameters<Catalog['transaction']>[0]>[0]) => tx.addDataFile('main', 'no_such_table', { path: '../x', recordCount: 1, fileSizeBytes: 1 }),
        ][o.bad]!;
        const badCodes = [['NOT_FOUND'], ['INVALID_ARGUMENT'], ['INVALID_ARGUMENT', 'NOT_FOUND']][o.bad]!;
        const creates = faults([[!nameValid(o.name), 'INVALID_ARGUMENT'], [nameValid(o.name) && m.head.has(o.name), 'ALREADY_EXISTS']]);
        const expected = o.kind === 'unobserved' ? fails(...badCodes, ...creates.codes) : creates;
        return this.txn(
          what,
          expected,
          async (tx) => {
            if (o.kind === 'caught') await bad(tx).catch(() => undefined);
            else void bad(tx);
            await tx.createSchema(o.name as string);
          },
          () => {
            const next = clone(m.head);
            next.set(o.name as string, new Map());
            return next;
          },
        );
      }
      case 'concurrent': {
        // Two transactions at once, each creating a table in main: distinct names both commit; one name, one.
        const run = (name: string) => outcome(this.c.transaction((tx) => tx.createTable('main', name, [{ name: 'a', type: 'int32' }])));
        const [a, b] = await Promise.all([run(o.a), run(o.b)]);
        const main = m.head.get('main');
        const committed: [number, string][] = [];
        for (const [name, got] of [[o.a, a], [o.b, b]] as const) {
          const exists = main === undefined ? fails('NOT_FOUND') : main.has(name) ? fails('ALREADY_EXISTS') : ok();
          if (got.error === undefined) {
            if (!exists.ok) throw new Error(`${what}: ${name} committed, the model expected ${[...exists.codes]}`);
            committed.push([got.value!.snapshot!, name]);
          } else check(what, { ok: false, codes: exists.ok ? new Set(['ALREADY_EXISTS', 'CONFLICT']) : exists.codes }, got);
        }
        if (o.a === o.b && committed.length > 1) throw new Error(`${what}: both creations of one name committed`);
        if (o.a !== o.b && committed.length === 1 && main !== undefined && !main.has(o.a) && !main.has(o.b)) {
          throw new Error(`${what}: two creations of different names, only one committed`);
        }
        for (const [, name] of committed.sort(([x], [y]) => x - y)) {
          const next = clone(m.head);
          next.get('main')!.set(name, newTable([{ name: 'a', type: 'int32' }]));
          m.commit(next);
        }
        return;
      }
      case 'changes': {
        const count = isCount;
        const e = faults([
          [!nameValid(o.schema) || !nameValid(o.name) || !count(o.from) || !count(o.to), 'INVALID_ARGUMENT'],
          [count(o.from) && count(o.to) && (o.from as number) > (o.to as number), 'INVALID_ARGUMENT'],
          [count(o.to) && (o.to as number) > m.newest, 'SNAPSHOT_NOT_FOUND'],
          [count(o.from) && (o.from as number) > m.newest, 'SNAPSHOT_NOT_FOUND'],
        ]);
        // Whether a table that exists at neither bound is NOT_FOUND or an empty answer is the catalog's call.
        if (nameValid(o.schema) && nameValid(o.name)) e.codes.add('NOT_FOUND');
        const got = await outcome(this.c.changes(o.schema as string, o.name as string, { from: o.from as number, to: o.to as number }));
        if (got.error !== undefined && e.ok && isStrataError(got.error, 'NOT_FOUND')) return;
        check(what, e, got);
        return;
      }
      case 'alterColumnType': {
        const t = this.table(o.schema, o.name);
        const at = typeof o.column === 'string' && t !== undefined ? t.columns.indexOf(o.column) : -1;
        const typeOk = o.type === 'int32' || o.type === 'int64' || o.type === 'varchar';
        const from = at >= 0 ? t!.types[at]! : undefined;
        const e = faults([
          ...this.tableFaults(o.schema, o.name),
          [!nameValid(o.column) || !typeOk, 'INVALID_ARGUMENT'],
          [t !== undefined && nameValid(o.column) && at < 0, 'NOT_FOUND'],
          [from !== undefined && typeOk && from !== o.type && !WIDENS.has(`${from}>${o.type as string}`), 'INVALID_ARGUMENT'],
        ]);
        return this.txn(what, e, (tx) => tx.alterColumnType(o.schema as string, o.name as string, o.column as string, o.type as string), () => {
          if (from === o.type) return undefined;
          const next = clone(m.head);
          next.get(o.schema as string)!.get(o.name as string)!.types[at] = o.type as string;
          return next;
        });
      }
      case 'addDeleteFile': {
        const t = this.table(o.schema, o.name);
        const id = liveFile(t, o.file);
        const idOk = isCount(id);
        const n = o.deleteCount;
        const countOk = isCount(n, 1);
        const e = faults([
          ...this.tableFaults(o.schema, o.name),
          [!idOk || !countOk || o.path !== null, 'INVALID_ARGUMENT'],
          [t !== undefined && idOk && !t.files.has(id), 'NOT_FOUND'],
          [t !== undefined && idOk && countOk && t.files.has(id) && (n as number) > t.records.get(id)!, 'INVALID_ARGUMENT'],
        ]);
        // A file the table once had (removed since) may be NOT_FOUND or INVALID_ARGUMENT: either says it is not live.
        if (!e.ok && e.codes.has('NOT_FOUND')) e.codes.add('INVALID_ARGUMENT');
        const spec = { dataFileId: id, path: o.path === null ? `d/${m.paths}.parquet` : o.path, deleteCount: n, fileSizeBytes: 10 };
        return this.txn(what, e, async (tx) => {
          await tx.addDeleteFile(o.schema as string, o.name as string, spec as never);
        }, () => {
          m.paths++;
          return clone(m.head); // delete files are not in the model's picture, only the snapshot they make
        });
      }
      case 'snapshotsOf': {
        const count = isCount;
        const e = faults([
          [!nameValid(o.schema) || !nameValid(o.name), 'INVALID_ARGUMENT'],
          [nameValid(o.schema) && !m.history.some((h) => h.has(o.schema as string)), 'NOT_FOUND'],
          [o.from !== null && !count(o.from), 'INVALID_ARGUMENT'],
          [o.from !== null && count(o.from) && (o.from as number) > m.newest, 'SNAPSHOT_NOT_FOUND'],
        ]);
        // A table that never existed: an empty history or NOT_FOUND, the catalog's call.
        if (nameValid(o.schema) && nameValid(o.name)) e.codes.add('NOT_FOUND');
        const got = await outcome(this.c.snapshots({ table: { schema: o.schema as string, table: o.name as string }, ...(o.from === null ? {} : { from: o.from as number }) }));
        if (got.error !== undefined && e.ok && isStrataError(got.error, 'NOT_FOUND')) return;
        check(what, e, got);
        return;
      }
      case 'sql': {
        // The sequence's files are never written: a table with files at the snapshot is CORRUPT (a file the
        // catalog names is missing), one without counts 0 rows; a name no key can hold is refused.
        const q = (n: unknown) => `"${String(n).replaceAll('"', '""')}"`;
        const text = `SELECT count(*) AS n FROM ${q(o.schema)}.${q(o.name)}${o.snapshot === null ? '' : ` AT (VERSION => ${o.snapshot})`}`;
        // In SQL text every name is text: String(undefined) is a table called "undefined".
        const [sn, tn] = [String(o.schema), String(o.name)];
        const state = m.history[o.snapshot ?? m.newest];
        const t = state?.get(sn)?.get(tn);
        const e = faults([
          [!nameValid(sn) || !nameValid(tn), 'INVALID_ARGUMENT'],
          [!nameValid(sn) || !nameValid(tn), 'NOT_FOUND'],
          [state === undefined, 'SNAPSHOT_NOT_FOUND'],
          [state !== undefined && nameValid(sn) && nameValid(tn) && t === undefined, 'NOT_FOUND'],
          [t !== undefined && t.files.size > 0, 'CORRUPT'],
        ]);
        const got = await outcome(this.c.sql(text));
        if (check(what, e, got)) expect(got.value!.rows, what).toEqual([{ n: 0n }]);
        return;
      }
      case 'reopen':
        await this.close();
        await this.open();
        expect(await readState(await this.c.reader()), what).toEqual(project(m.head));
        return;
      case 'closeMidRead': {
        const r = await this.c.reader();
        const reads = Promise.allSettled([readState(r), this.c.snapshots(), r.tables('main').catch((e: unknown) => Promise.reject(e))]);
        await this.c.close();
        for (const s of await reads) if (s.status === 'rejected') check(what, fails('INVALID_ARGUMENT'), { error: s.reason });
        await this.open();
        return;
      }
    }
  }

  /** Every snapshot as the model recorded it, and verify clean. */
  async finish(): Promise<void> {
    for (let s = 0; s <= this.model.newest; s++) {
      const r = await this.c.reader({ snapshot: s });
      try {
        expect(await readState(r), `snapshot ${s} after:\n${this.log.join('\n')}`).toEqual(project(this.model.history[s]!));
      } finally {
        await r.close();
      }
    }
    expect((await this.c.snapshots()).length, this.log.join('\n')).toBe(this.model.newest + 1);
    const report = await this.c.verify();
    expect(report.violations, this.log.join('\n')).toEqual([]);
  }
}

type Reader = Awaited<ReturnType<Catalog['reader']>>;

/** What a reader sees, in the model's terms. */
async function readState(r: Reader) {
  const out: Record<string, Record<string, { columns: string[]; types: string[]; files: { path: string; recordCount: number }[] }>> = {};
  for (const s of await r.schemas()) {
    out[s.name] = {};
    for (const t of await r.tables(s.name)) {
      const table = await r.table(s.name, t.name);
      const files = (await r.dataFiles(s.name, t.name)).map(({ path, recordCount }) => ({ path, recordCount }));
      out[s.name]![t.name] = { columns: table.columns.map((c) => c.name), types: table.columns.map((c) => c.type), files: files.sort(byPath) };
    }
  }
  return out;
}

function project(s: MState) {
  const files = (t: MTable) => [...t.files].map(([id, path]) => ({ path, recordCount: t.records.get(id)! })).sort(byPath);
  return Object.fromEntries([...s].map(([n, ts]) => [n, Object.fromEntries([...ts].map(([t, v]) => [t, { columns: v.columns, types: v.types, files: files(v) }]))]));
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

describe('the public API under random hostile call sequences', () => {
  it(`${RUNS} sequences: every call as the model says or a documented StrataError; every snapshot as recorded; verify clean`, async () => {
    await fc.assert(
      fc.asyncProperty(sequences, async (ops) => {
        const run = new Run(await tempDir());
        await run.open();
        try {
          for (const o of ops) await run.step(o);
          await run.finish();
        } finally {
          await run.close();
        }
      }),
      { numRuns: RUNS, ...replay },
    );
  }, 600_000);
});
