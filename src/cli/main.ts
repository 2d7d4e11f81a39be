#!/usr/bin/env node
// The `strata` command. Argument parsing is Node's own util.parseArgs: no dependency needed for flags this simple.
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Catalog } from '../catalog/catalog.js';
import type { VerifyReport } from '../catalog/verify.js';
import { StrataError } from '../errors.js';
import type { HistoryBound } from '../read/history.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';
import { removeDemo, runDemo } from './demo.js';
import { load as loadCommand, renderResult, sql as sqlCommand } from './sql.js';
import { compactLog, describeAdvance, excise, type GcOptions, gc, parseDuration, pruneCheckpoints, reclaim } from './gc.js';
import { describeVerify, printable, renderChanges, snapshotTable, table } from './format.js';
import { describeCatalog, describeTable, renderCatalog, renderTable } from './show.js';

const USAGE = `strata — a lakehouse catalog that keeps its whole history

usage: strata <command> [options]

commands:
  init                           create the catalog in --dir (or check an existing one)
  snapshots [--table s.t] [--from X] [--to Y] [--json]
                                 the history, oldest first (all of it, a range, or one table's)
  show [s.t] [--at N | --timestamp T | --tag NAME | --previous] [--json]
                                 what a reader sees at that snapshot (default: the newest)
  diff s.t FROM TO [--json]      files the table gained and lost in snapshots FROM..TO (ids or times)
  changes s.t FROM TO [--json | --csv]
                                 rows inserted, deleted and updated in snapshots FROM..TO (ids, times or tags)
  tag create NAME SNAPSHOT | tag drop NAME | tag list [--json]
  restore s.t SNAPSHOT           restore a table's columns and files, as a new commit
  checkpoint                     write a checkpoint, so new machines replay only the log after it
  retain [--snapshot N | --keep 30d] [--dry-run] [--json]
                                 move retain-from forward (no option: show it, and the leases)
  excise [--dry-run] [--batch-size N] [--json]
                                 physically delete what is below retain-from (untagged, unleased)
  reclaim [--grace 2d] [--orphans [--min-age 7d]] [--dry-run] [--json]
                                 delete excised files from the store after their grace period (with
                                 --orphans, also unnamed data files and leftovers of crashed writes)
  prune-checkpoints [--keep-checkpoints 2] [--checkpoint-age 1h] [--dry-run] [--json]
                                 delete checkpoints superseded for --checkpoint-age, keeping the newest ones
  compact-log [--checkpoint-age 1h] [--dry-run] [--json]
                                 replace the log entries a checkpoint that old covers with stubs
  gc --keep 30d [--grace 2d] [--orphans [--min-age 7d]] [--keep-checkpoints 2] [--checkpoint-age 1h]
     [--dry-run] [--json]        all of them: retain what is newer than --keep, excise, reclaim, and (after
                                 an excision) checkpoint, prune checkpoints, compact the log
  sql "SELECT …" [--at N | --timestamp T | --tag NAME] [--json | --csv]
                                 run a query over any snapshot (per table: AT (VERSION => n | 'tag'))
  load s.t FILE                  load a CSV or Parquet file into a table, as one commit
  compact s.t [--target-file-size BYTES] [--json]
                                 rewrite small files and those with deleted rows (row ids kept), one
                                 maintenance commit
  verify [--files] [--json]      check every invariant the catalog keeps against the store (exit 1 on a
                                 violation); --files also finds each file a row names, with its size
  repair --rebuild-index         throw the local index away and rebuild it from the store
  demo [--force]                 build a small history in --dir and show time travel over it

X, Y, FROM, TO and T are snapshot ids or ISO-8601 times (e.g. 2026-03-01T12:00:00Z).

options:
  --dir DIR      local directory: the index, and the store unless --store is given (default ./lake)
  --store PATH   a shared store directory
  --help         this text`;

/** Every line the CLI prints goes through this: names in it come from whoever wrote the catalog. */
const say = (text: string) => console.log(printable(text));
const json = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Date ? x.toISOString() : x), 2);
const usage = (message: string) => new StrataError('INVALID_ARGUMENT', `${message}\n\n${USAGE}`);

/** `schema.table`, or `table` in schema main. */
function qualified(name: string | undefined): { schema: string; table: string } {
  if (name === undefined) throw usage('a table is needed, as schema.table');
  const dot = name.indexOf('.');
  return dot < 0 ? { schema: 'main', table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}

/** A snapshot id if the argument is all digits, else a time. */
const bound = (arg: string): HistoryBound => (/^\d+$/.test(arg) ? Number(arg) : arg);

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      dir: { type: 'string', default: './lake' },
      store: { type: 'string' },
      at: { type: 'string' },
      timestamp: { type: 'string' },
      tag: { type: 'string' },
      previous: { type: 'boolean', default: false },
      table: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean', default: false },
      csv: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      snapshot: { type: 'string' },
      keep: { type: 'string' },
      grace: { type: 'string', default: '2d' },
      orphans: { type: 'boolean', default: false },
      'min-age': { type: 'string', default: '7d' },
      'dry-run': { type: 'boolean', default: false },
      'batch-size': { type: 'string' },
      'keep-checkpoints': { type: 'string', default: '2' },
      'checkpoint-age': { type: 'string', default: '1h' },
      files: { type: 'boolean', default: false },
      'rebuild-index': { type: 'boolean', default: false },
      'target-file-size': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, ...args] = positionals;
  if (values.help || command === undefined) {
    say(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const print = (human: () => string, data: unknown) => say(values.json ? json(data) : human());
  const gcOptions = (): GcOptions => ({
    dryRun: values['dry-run'],
    progress: !values.json && process.stderr.isTTY === true,
    say: (line) => (values.json ? undefined : say(line)),
  });
  const reclaimOptions = () => ({
    graceMs: parseDuration('--grace', values.grace),
    orphans: values.orphans,
    minAgeMs: parseDuration('--min-age', values['min-age']),
  });
  const pruneOptions = () => {
    const keep = values['keep-checkpoints'];
    if (!/^\d+$/.test(keep)) throw usage('--keep-checkpoints takes a positive integer');
    return { keep: Number(keep), minAgeMs: parseDuration('--checkpoint-age', values['checkpoint-age']) };
  };
  /** --at, --timestamp, --tag, --previous as a reader's selector; undefined when none is given. */
  const selectorOf = (): SnapshotSelector | undefined => {
    const selector: SnapshotSelector = {
      ...(values.at === undefined ? {} : { snapshot: /^\d+$/.test(values.at) ? Number(values.at) : Number.NaN }),
      ...(values.timestamp === undefined ? {} : { timestamp: values.timestamp }),
      ...(values.tag === undefined ? {} : { tag: values.tag }),
      ...(values.previous ? { previous: true as const } : {}),
    };
    return Object.keys(selector).length === 0 ? undefined : selector;
  };
  const withCatalog = async (fn: (c: Catalog) => Promise<void>) => {
    // Only init creates a catalog: a mistyped --dir in a cron job fails instead of GC'ing a new empty one.
    const c = await Catalog.open({ dir: values.dir, create: command === 'init', ...(values.store ? { store: { path: values.store } } : {}) }).catch((e: unknown) => {
      if (e instanceof StrataError && e.code === 'NOT_FOUND') {
        throw new StrataError('NOT_FOUND', `there is no catalog in ${values.store ?? values.dir}; nothing was created (strata init --dir ${values.dir}${values.store ? ` --store ${values.store}` : ''} creates one)`);
      }
      throw e;
    });
    try {
      await fn(c);
    } finally {
      await c.close();
    }
  };

  switch (command) {
    case 'init':
      await withCatalog(async (c) => {
        const n = (await c.snapshots()).length;
        say(`catalog ready in ${values.dir} (${n} snapshot${n === 1 ? '' : 's'})`);
      });
      return 0;
    case 'snapshots':
      await withCatalog(async (c) => {
        const snapshots = await c.snapshots({
          ...(values.table === undefined ? {} : { table: qualified(values.table) }),
          ...(values.from === undefined ? {} : { from: bound(values.from) }),
          ...(values.to === undefined ? {} : { to: bound(values.to) }),
        });
        print(() => snapshotTable(snapshots), snapshots);
      });
      return 0;
    case 'show':
      await withCatalog(async (c) => {
        const r = await c.reader(selectorOf() ?? {});
        try {
          if (args[0] === undefined) {
            const d = await describeCatalog(r);
            print(() => renderCatalog(d), d);
          } else {
            const { schema, table: name } = qualified(args[0]);
            const d = await describeTable(r, schema, name);
            print(() => renderTable(d), d);
          }
        } finally {
          await r.close();
        }
      });
      return 0;
    case 'diff': {
      const [name, from, to] = args;
      if (from === undefined || to === undefined) throw usage('diff takes schema.table FROM TO');
      const { schema, table: t } = qualified(name);
      await withCatalog(async (c) => {
        const changes = await c.changes(schema, t, { from: bound(from), to: bound(to) });
        print(() => renderChanges(`${schema}.${t}`, from, to, changes), changes);
      });
      return 0;
    }
    case 'tag': {
      const [action, name, snapshot] = args;
      await withCatalog(async (c) => {
        if (action === 'create' && name !== undefined && snapshot !== undefined && /^\d+$/.test(snapshot)) {
          await c.createTag(name, Number(snapshot));
          say(`tag ${name} → snapshot ${snapshot}`);
        } else if (action === 'drop' && name !== undefined) {
          await c.dropTag(name);
          say(`tag ${name} dropped`);
        } else if (action === 'list') {
          const tags = await c.tags();
          print(() => table(['tag', 'snapshot', 'created'], tags.map((x) => [x.name, x.snapshot, x.createdAt.toISOString()])), tags);
        } else {
          throw usage('tag takes: create NAME SNAPSHOT | drop NAME | list');
        }
      });
      return 0;
    }
    case 'restore': {
      const [name, snapshot] = args;
      if (snapshot === undefined || !/^\d+$/.test(snapshot)) throw usage('restore takes schema.table SNAPSHOT');
      const { schema, table: t } = qualified(name);
      await withCatalog(async (c) => {
        const result = await c.restoreTable(schema, t, Number(snapshot));
        say(
          result.snapshot === null
            ? `${schema}.${t} already is as it was at snapshot ${snapshot}; nothing committed`
            : `${schema}.${t} restored to snapshot ${snapshot} as snapshot ${result.snapshot}`,
        );
      });
      return 0;
    }
    case 'checkpoint':
      await withCatalog(async (c) => {
        const cp = await c.checkpoint();
        print(() => `checkpoint at log entry ${cp.seq}: ${cp.keys} keys in ${cp.chunks} chunk${cp.chunks === 1 ? '' : 's'}`, cp);
      });
      return 0;
    case 'retain':
      await withCatalog(async (c) => {
        if (values.snapshot === undefined && values.keep === undefined) {
          const [retainFrom, leases] = [await c.retainFrom(), await c.leases()];
          print(
            () =>
              `retain-from is ${retainFrom}\n` +
              (leases.length === 0
                ? 'no leases'
                : table(['lease', 'holder', 'snapshot', 'expires'], leases.map((l) => [l.id, l.holder, l.snapshot, `${l.expiresAt.toISOString()}${l.expired ? ' (expired)' : ''}`]))),
            { retainFrom, leases },
          );
          return;
        }
        if (values.snapshot !== undefined && values.keep !== undefined) throw usage('retain takes --snapshot N or --keep DURATION, not both');
        const target =
          values.snapshot !== undefined
            ? { snapshot: /^\d+$/.test(values.snapshot) ? Number(values.snapshot) : Number.NaN }
            : { olderThan: Math.max(0, Date.now() - parseDuration('--keep', values.keep!)) };
        const result = await c.advanceRetainFrom(target, { dryRun: values['dry-run'] });
        print(() => describeAdvance(result, values['dry-run']), result);
      });
      return 0;
    case 'excise':
      await withCatalog(async (c) => {
        const batch = values['batch-size'];
        if (batch !== undefined && !/^\d+$/.test(batch)) throw usage('--batch-size takes a positive integer');
        const report = await excise(c, batch === undefined ? undefined : Number(batch), gcOptions());
        if (values.json) say(json(report));
      });
      return 0;
    case 'reclaim':
      await withCatalog(async (c) => {
        const report = await reclaim(c, reclaimOptions(), gcOptions());
        if (values.json) say(json(report));
      });
      return 0;
    case 'prune-checkpoints':
      await withCatalog(async (c) => {
        const report = await pruneCheckpoints(c, pruneOptions(), gcOptions());
        if (values.json) say(json(report));
      });
      return 0;
    case 'compact-log':
      await withCatalog(async (c) => {
        const report = await compactLog(c, parseDuration('--checkpoint-age', values['checkpoint-age']), gcOptions());
        if (values.json) say(json(report));
      });
      return 0;
    case 'gc':
      if (values.keep === undefined) throw usage('gc needs --keep DURATION (e.g. --keep 30d): history newer than that stays readable');
      await withCatalog(async (c) => {
        const report = await gc(c, { keepMs: parseDuration('--keep', values.keep!), ...reclaimOptions(), now: Date.now(), prune: pruneOptions() }, gcOptions());
        if (values.json) say(json(report));
      });
      return 0;
    case 'sql': {
      const [statement, extra] = args;
      if (statement === undefined || extra !== undefined) throw usage('sql takes one statement, quoted: strata sql "SELECT …"');
      if (values.json && values.csv) throw usage('sql takes --json or --csv, not both');
      const bar = !values.json && !values.csv && process.stderr.isTTY === true;
      await withCatalog(async (c) => say(await sqlCommand(c, statement, selectorOf(), values.json ? 'json' : values.csv ? 'csv' : 'table', bar)));
      return 0;
    }
    case 'changes': {
      const [name, from, to, extra] = args;
      if (from === undefined || to === undefined || extra !== undefined) throw usage('changes takes schema.table FROM TO (snapshot ids, times or tag names)');
      if (values.json && values.csv) throw usage('changes takes --json or --csv, not both');
      const { schema, table: t } = qualified(name);
      // A number is a snapshot id, an ISO-8601 time a time, anything else a tag.
      const end = (arg: string) => (/^\d+$/.test(arg) ? Number(arg) : /^\d{4}-\d{2}-\d{2}/.test(arg) ? arg : { tag: arg });
      await withCatalog(async (c) => {
        const started = performance.now();
        const r = await c.tableChanges(schema, t, { from: end(from), to: end(to) });
        say(renderResult(r, values.json ? 'json' : values.csv ? 'csv' : 'table', performance.now() - started));
      });
      return 0;
    }
    case 'compact': {
      const [name, extra] = args;
      if (name === undefined || extra !== undefined) throw usage('compact takes schema.table');
      const size = values['target-file-size'];
      if (size !== undefined && !/^\d+$/.test(size)) throw usage(`--target-file-size takes a number of bytes, got ${JSON.stringify(size)}`);
      const { schema, table: t } = qualified(name);
      await withCatalog(async (c) => {
        const r = await c.compact(schema, t, size === undefined ? {} : { targetFileSize: Number(size) });
        const line = r.snapshot === null
          ? `${schema}.${t} has nothing to compact`
          : `${schema}.${t}: ${r.removed.dataFiles} data files and ${r.removed.deleteFiles} delete files rewritten into ${r.added.length} (${r.rows} rows), snapshot ${r.snapshot}`;
        print(() => line, r);
      });
      return 0;
    }
    case 'load': {
      const [name, file, extra] = args;
      if (file === undefined || extra !== undefined) throw usage('load takes schema.table FILE');
      const { schema, table: t } = qualified(name);
      await withCatalog(async (c) => say(await loadCommand(c, schema, t, file, !values.json && process.stderr.isTTY === true)));
      return 0;
    }
    case 'verify': {
      let report: VerifyReport | undefined;
      await withCatalog(async (c) => {
        report = await c.verify({ files: values.files });
      });
      print(() => describeVerify(report!), report);
      return report!.ok ? 0 : 1;
    }
    case 'repair':
      if (!values['rebuild-index']) throw usage('repair takes --rebuild-index (the only repair there is: the store is the source of truth)');
      // The index is a cache of the store: removing it loses nothing, and the open rebuilds it.
      await rm(path.join(values.dir, 'index'), { recursive: true, force: true });
      await withCatalog(async (c) => {
        const n = (await c.snapshots()).length;
        say(`index in ${path.join(values.dir, 'index')} rebuilt from the store (${n} snapshot${n === 1 ? '' : 's'})`);
      });
      return 0;
    case 'demo':
      if (values.force) await removeDemo(values.dir);
      await runDemo(values.dir, (s) => say(s));
      return 0;
    default:
      console.error(`strata: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof StrataError) console.error(printable(`strata: ${e.code}: ${e.message}`));
    else if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(printable(`strata: ${(e as Error).message}\n\n${USAGE}`));
    else console.error(e);
    process.exitCode = 1;
  },
);
