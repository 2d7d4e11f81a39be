// The `strata` command line: every command and its options, parsed by commander (subcommand help, "did you
// mean", refused extra arguments). Each action opens the catalog the global options name and calls the API.
import { rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Command } from 'commander';
import { type GlobalOptions, json, page, pageBounds, pageOf, type Paging, print, qualified, say, snapshotOf, storeOption, TEXT_LIMIT, UsageError, wholeNumber, withCatalog } from './context.js';
import { describeVerify, renderChanges, size, table } from './format.js';
import { compactLog, describeAdvance, excise, type GcOptions, gc, parseDuration, pruneCheckpoints, reclaim } from './gc.js';
import { snapshotTable } from './history.js';
import { writeNow } from './output.js';
import type { ServeFlags } from './serve.js';
import { describeInfo, renderInfo } from './info.js';
import { describeCatalog, describeTable, renderCatalog, renderTable } from './show.js';
import { type Authorship, load as loadCommand, printResult, type SqlFormat, sql as sqlCommand } from './sql.js';
import { shell } from './shell.js';
import { cliParams, statementText } from './statement-source.js';
import { sketch, svg, timelineOf } from './timeline.js';
import { type Catalog, importDuckLake } from '../catalog/catalog.js';
import type { SnapshotInfo } from '../read/records.js';
import type { SnapshotSelector } from '../read/resolve-snapshot.js';

const SNAPSHOT_ARGS = `A SNAPSHOT (and FROM, TO, --at) is a snapshot id (7), an ISO-8601 time (2026-03-01T12:00Z; no zone is UTC) or a tag name (tag:NAME names a tag whatever it looks like).`;
const EXIT_CODES = 'Exit codes: 0 done, 1 the command failed (or verify found a violation), 2 the command line is wrong.';

type Opts = Record<string, unknown>;
/** The global options merged with the command's own. */
const globals = (cmd: Command): GlobalOptions & Opts => cmd.optsWithGlobals() as GlobalOptions & Opts;
const interactive = (g: GlobalOptions) => !g.json && process.stderr.isTTY === true;
const positiveInt = (flag: string, v: string) => wholeNumber(flag, v, 1);
const paging = (c: Command) => c.option('--limit <n>', 'show at most n (text: 100 by default; 0: all)').option('--offset <n>', 'skip the first n');

function gcOptions(g: GlobalOptions & Opts, listing: Paging = {}): GcOptions {
  return { dryRun: g.dryRun === true, progress: interactive(g), say: (line) => (g.json ? undefined : say(line)), list: (paths) => page(g, listing, paths, 'paths') };
}

/** --at, --timestamp, --tag, --previous as a reader's selector (--at resolved to an id); undefined when none is given. */
async function readAt(c: Catalog, o: Opts): Promise<SnapshotSelector | undefined> {
  const given = [o.at, o.timestamp, o.tag, o.previous].filter((v) => v !== undefined && v !== false).length;
  if (given > 1) throw new UsageError('give one of --at, --timestamp, --tag and --previous');
  if (o.at !== undefined) return { snapshot: await snapshotOf(c, '--at', String(o.at)) };
  if (o.timestamp !== undefined) return { timestamp: String(o.timestamp) };
  if (o.tag !== undefined) return { tag: String(o.tag) };
  return o.previous ? { previous: true } : undefined;
}
const atOptions = (c: Command) =>
  c
    .option('--at <snapshot>', 'a snapshot id, time or tag')
    .option('--timestamp <time>', 'the newest snapshot at or before this time')
    .option('--tag <name>', 'the snapshot a tag pins')
    .option('--previous', 'the snapshot before the newest (maintenance skipped)');

// How sql, shell and changes print their rows: the table view cut at --limit, or all of them as CSV or JSON.
const resultOptions = (c: Command) =>
  c.option('--csv', 'print every row as CSV').option('--limit <n>', `the table view shows this many rows (default ${TEXT_LIMIT}; 0: all)`);
function resultFormat(command: string, g: GlobalOptions, o: Opts): SqlFormat {
  if (g.json && o.csv) throw new UsageError(`${command} takes --json or --csv, not both`);
  if (o.limit !== undefined && (g.json || o.csv)) throw new UsageError(`--limit cuts the table view; --csv and --json print every row (cut the rows in the statement: LIMIT n)`);
  return g.json ? 'json' : o.csv ? 'csv' : 'table';
}
const resultLimit = (o: Opts) => (o.limit === undefined ? TEXT_LIMIT : wholeNumber('--limit', String(o.limit)));

// Who made a commit and why: recorded in its snapshot (strata snapshots shows them).
const commitOptions = (c: Command) => c.option('--author <name>', 'the author of the commit').option('--message <text>', 'the message of the commit (default: the statement)');
const authorship = (o: Opts): Authorship => ({ ...(o.author === undefined ? {} : { author: String(o.author) }), ...(o.message === undefined ? {} : { message: String(o.message) }) });

// The options reclaim and prune-checkpoints share with gc, each defined once.
const reclaimFlags = (c: Command) =>
  c
    .option('--grace <duration>', 'how long a scheduled file waits', '2d')
    .option('--orphans', 'also unnamed data files and leftovers of crashed writes')
    .option('--min-age <duration>', 'with --orphans: only objects this old', '7d');
const pruneFlags = (c: Command) =>
  c.option('--keep-checkpoints <n>', 'complete checkpoints to keep', '2').option('--checkpoint-age <duration>', 'superseded for at least this long', '1h');
const reclaimOptions = (o: Opts) => ({ graceMs: parseDuration('--grace', String(o.grace)), orphans: o.orphans === true, minAgeMs: parseDuration('--min-age', String(o.minAge)) });
const pruneOptions = (o: Opts) => ({ keep: positiveInt('--keep-checkpoints', String(o.keepCheckpoints)), minAgeMs: parseDuration('--checkpoint-age', String(o.checkpointAge)) });

/** The program; with `quiet`, the parser's own error messages are left to the caller (--json prints them as JSON). */
export function program(version: string, quiet: boolean): Command {
  const p = new Command('strata')
    .exitOverride()
    // Help and the version are a command's one text, as say()'s are (output.ts).
    .configureOutput({ writeOut: writeNow, outputError: (text, write) => (quiet ? undefined : write(text)) })
    .description('a lakehouse catalog that keeps its whole history')
    .version(version, '-V, --version', 'print the version')
    .option('--dir <dir>', 'local directory: the index, and the store unless --store is given', './lake')
    .option('--store <store>', 'the shared store: a directory, or s3://bucket/prefix (credentials from AWS_* variables)')
    .option('--endpoint <url>', 'with an s3:// store: the service URL (default AWS_ENDPOINT_URL_S3)')
    .option('--region <region>', 'with an s3:// store: the region (default AWS_REGION, else us-east-1)')
    .option('--path-style', 'with an s3:// store: path-style addressing (MinIO, Ceph)')
    .option('--read-only', 'write nothing to the store (a read-only disk, a store others write): commands that write fail with READ_ONLY; commands that only read always open it so')
    .option('--json', 'print JSON (errors too, as { error: { code, message } } on stderr)')
    .showSuggestionAfterError(true)
    .showHelpAfterError(quiet ? false : '(strata --help lists the commands; strata <command> --help shows one)')
    .addHelpText('after', `\n${SNAPSHOT_ARGS}\n${EXIT_CODES}`);
  const command = (name: string, description: string) => p.command(name).description(description).allowExcessArguments(false);

  command('init', 'create the catalog in --dir (or check an existing one)').action(async (_o, cmd: Command) => {
    const g = globals(cmd);
    await withCatalog(g, async (c) => {
      const n = (await c.snapshots()).length;
      print(g, () => `catalog ready in ${g.store ?? g.dir} (${n} snapshot${n === 1 ? '' : 's'})`, { dir: g.dir, snapshots: n });
    }, 'create');
  });

  command('info', 'where the catalog keeps things, and how much there is').action(async (_o, cmd: Command) => {
    const g = globals(cmd);
    await withCatalog(g, async (c) => {
      const i = await describeInfo(c);
      print(g, () => renderInfo(i), i);
    }, 'read');
  });

  paging(command('snapshots', 'the history, newest first (all of it, a range, or one table\'s); --offset N pages back'))
    .option('--table <schema.table>', 'only the snapshots that changed this table')
    .option('--from <snapshot>', 'from this snapshot (inclusive)')
    .option('--to <snapshot>', 'to this snapshot (inclusive)')
    .action(async (o: Opts & Paging, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const bound = async (v: unknown) => (v === undefined ? undefined : snapshotOf(c, 'snapshot', String(v)));
        const [from, to] = [await bound(o.from), await bound(o.to)];
        const range = { ...(o.table ? { table: qualified(String(o.table)) } : {}), ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
        // Newest first: what a person looks for is what happened last; --offset goes back from there, and
        // nothing older than the page is read (but counted, for the line that says how many there are).
        const { offset, limit } = pageBounds(g, o);
        const shown: SnapshotInfo[] = [];
        let seen = 0;
        let total: number | undefined;
        for await (const s of c.iterateSnapshots({ ...range, newestFirst: true })) {
          if (limit !== 0 && shown.length === limit) break;
          if (seen++ >= offset) shown.push(s);
        }
        if (shown.length < limit || limit === 0) total = seen;
        const cut = pageOf(g, o, shown, total ?? (await c.snapshotCount(range)), 'snapshots');
        if (g.json) return say(json(cut.data));
        say(await snapshotTable(c, cut.items));
        if (cut.note) say(cut.note);
      }, 'read');
    });

  paging(atOptions(command('show', 'what a reader sees at a snapshot (default: the newest): the catalog, or one table').argument('[schema.table]')))
    .action(async (name: string | undefined, o: Opts & Paging, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const r = await c.reader((await readAt(c, o)) ?? {});
        try {
          if (name === undefined) {
            const d = await describeCatalog(r);
            return print(g, () => renderCatalog(d), d);
          }
          const { schema, table: t } = qualified(name);
          const d = await describeTable(r, schema, t);
          const files = page(g, o, d.dataFiles, 'data files');
          const deletes = page(g, o, d.deleteFiles, 'delete files');
          if (g.json) return say(json({ ...d, dataFiles: files.data, deleteFiles: deletes.data }));
          say(renderTable({ ...d, dataFiles: files.items, deleteFiles: deletes.items }));
          for (const note of [files.note, deletes.note]) if (note) say(note);
        } finally {
          await r.close();
        }
      }, 'read');
    });

  command('diff', 'the files a table gained and lost in snapshots FROM..TO').argument('<schema.table>').argument('<from>').argument('<to>')
    .action(async (name: string, from: string, to: string, _o, cmd: Command) => {
      const g = globals(cmd);
      const { schema, table: t } = qualified(name);
      await withCatalog(g, async (c) => {
        const changes = await c.changes(schema, t, { from: await snapshotOf(c, 'FROM', from), to: await snapshotOf(c, 'TO', to) });
        print(g, () => renderChanges(`${schema}.${t}`, from, to, changes), changes);
      }, 'read');
    });

  resultOptions(command('changes', 'rows inserted, deleted and updated in snapshots FROM..TO').argument('<schema.table>').argument('<from>').argument('<to>'))
    .action(async (name: string, from: string, to: string, o: Opts, cmd: Command) => {
      const g = globals(cmd);
      const format = resultFormat('changes', g, o);
      const { schema, table: t } = qualified(name);
      await withCatalog(g, async (c) => {
        const started = performance.now();
        const batches = c.tableChangesBatches(schema, t, { from: await snapshotOf(c, 'FROM', from), to: await snapshotOf(c, 'TO', to) });
        await printResult(batches, { format, limit: resultLimit(o), started });
      }, 'read');
    });

  const tag = command('tag', 'create, drop and list tags (names that pin a snapshot)');
  tag.command('create').description('pin SNAPSHOT under NAME').argument('<name>').argument('<snapshot>').allowExcessArguments(false).action(async (name: string, snapshot: string, _o, cmd: Command) => {
    const g = globals(cmd);
    await withCatalog(g, async (c) => {
      const id = await snapshotOf(c, 'SNAPSHOT', snapshot);
      await c.createTag(name, id);
      print(g, () => `tag ${name} → snapshot ${id}`, { name, snapshot: id });
    });
  });
  tag.command('drop').description('drop a tag (its snapshot stays until GC)').argument('<name>').allowExcessArguments(false).action(async (name: string, _o, cmd: Command) => {
    const g = globals(cmd);
    await withCatalog(g, async (c) => {
      await c.dropTag(name);
      print(g, () => `tag ${name} dropped`, { dropped: name });
    });
  });
  paging(tag.command('list').description('every tag').allowExcessArguments(false)).action(async (o: Paging, cmd: Command) => {
    const g = globals(cmd);
    await withCatalog(g, async (c) => {
      const cut = page(g, o, await c.tags(), 'tags');
      if (g.json) return say(json(cut.data));
      say(table(['tag', 'snapshot', 'created'], cut.items.map((x) => [x.name, x.snapshot, x.createdAt.toISOString()])));
      if (cut.note) say(cut.note);
    }, 'read');
  });

  commitOptions(command('restore', "restore a table's columns and files to SNAPSHOT, as a new commit").argument('<schema.table>').argument('<snapshot>'))
    .action(async (name: string, snapshot: string, o: Opts, cmd: Command) => {
      const g = globals(cmd);
      const { schema, table: t } = qualified(name);
      await withCatalog(g, async (c) => {
        const id = await snapshotOf(c, 'SNAPSHOT', snapshot);
        const r = await c.restoreTable(schema, t, id, authorship(o));
        print(g, () => (r.snapshot === null ? `${schema}.${t} already is as it was at snapshot ${id}; nothing committed` : `${schema}.${t} restored to snapshot ${id} as snapshot ${r.snapshot}`), { from: id, ...r });
      });
    });

  command('checkpoint', 'write a checkpoint, so new machines replay only the log after it').action(async (_o, cmd: Command) => {
    const g = globals(cmd);
    await withCatalog(g, async (c) => {
      const cp = await c.checkpoint();
      print(g, () => `checkpoint at log entry ${cp.seq}: ${cp.keys} keys in ${cp.chunks} chunk${cp.chunks === 1 ? '' : 's'}${cp.after === null ? '' : `, those changed since checkpoint ${cp.after}`}`, cp);
    });
  });

  command('retain', 'move retain-from forward (no option: show it, and the leases)')
    .option('--snapshot <snapshot>', 'to this snapshot (id, time or tag)')
    .option('--keep <duration>', 'past the snapshots older than this (30d, 12h, …)')
    .option('--dry-run', 'say what would happen, change nothing')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        if (o.snapshot === undefined && o.keep === undefined) {
          const [retainFrom, leases] = [await c.retainFrom(), await c.leases()];
          const human = () => `retain-from is ${retainFrom}\n` + (leases.length === 0 ? 'no leases' : table(['lease', 'holder', 'snapshot', 'expires'], leases.map((l) => [l.id, l.holder, l.snapshot, `${l.expiresAt.toISOString()}${l.expired ? ' (expired)' : ''}`])));
          return print(g, human, { retainFrom, leases });
        }
        if (o.snapshot !== undefined && o.keep !== undefined) throw new UsageError('retain takes --snapshot or --keep, not both');
        const target = o.snapshot !== undefined ? { snapshot: await snapshotOf(c, '--snapshot', String(o.snapshot)) } : { olderThan: Math.max(0, Date.now() - parseDuration('--keep', String(o.keep))) };
        const result = await c.advanceRetainFrom(target, { dryRun: o.dryRun === true });
        print(g, () => describeAdvance(result, o.dryRun === true), result);
      }, o.snapshot === undefined && o.keep === undefined ? 'read' : 'write');
    });

  command('excise', 'physically delete what is below retain-from (untagged, unleased)')
    .option('--dry-run', 'say what would go, delete nothing')
    .option('--batch-size <n>', 'versions per logged batch')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const report = await excise(c, o.batchSize === undefined ? undefined : positiveInt('--batch-size', String(o.batchSize)), gcOptions(g));
        if (g.json) say(json(report));
      });
    });

  reclaimFlags(paging(command('reclaim', 'delete excised files from the store after their grace period')))
    .option('--dry-run', 'say what would go, delete nothing')
    .action(async (o: Opts & Paging, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const report = await reclaim(c, reclaimOptions(o), gcOptions(g, o));
        if (g.json) say(json(report));
      });
    });

  pruneFlags(command('prune-checkpoints', 'delete checkpoints superseded for --checkpoint-age, keeping the newest'))
    .option('--dry-run', 'say what would go, delete nothing')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const report = await pruneCheckpoints(c, pruneOptions(o), gcOptions(g));
        if (g.json) say(json(report));
      });
    });

  command('compact-log', 'replace the log entries an old-enough checkpoint covers with stubs')
    .option('--checkpoint-age <duration>', 'the checkpoint at least this old', '1h')
    .option('--dry-run', 'say what would go, change nothing')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const report = await compactLog(c, parseDuration('--checkpoint-age', String(o.checkpointAge)), gcOptions(g));
        if (g.json) say(json(report));
      });
    });

  pruneFlags(reclaimFlags(command('gc', 'all of GC: retain what is newer than --keep, excise, reclaim, checkpoint, prune, compact the log')))
    .requiredOption('--keep <duration>', 'history newer than this stays readable (30d, 12h, …)')
    .option('--dry-run', 'say what would happen, change nothing')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const report = await gc(c, { keepMs: parseDuration('--keep', String(o.keep)), ...reclaimOptions(o), now: Date.now(), prune: pruneOptions(o) }, gcOptions(g));
        if (g.json) say(json(report));
      });
    });

  commitOptions(
    resultOptions(
      atOptions(
        command('sql', "run one statement over any snapshot (per table: AT (VERSION => n | 'tag')); it may read files it names, with your permissions")
          .argument('[statement]', 'the statement; - reads it from standard input')
          .option('-f, --file <path>', 'read the statement from this file')
          .option('--params <json>', 'values DuckDB binds to the statement: a JSON array for $1, $2, … (or ?), an object for $name')
          .option('--no-host-files', "read no file: by default, as on your own machine, the statement may read the files it names (read_csv('orders.csv'), read_json, read_parquet, COPY … FROM, …) with your permissions, to query them or INSERT … SELECT from them; it writes no file outside the lake unless --write-files")
          .option('--write-files', "let COPY … TO write the file it names, with your permissions (off by default: a statement writes nothing outside the lake)"),
      ),
    ),
  ).action(async (argument: string | undefined, o: Opts, cmd: Command) => {
    const g = globals(cmd);
    const format = resultFormat('sql', g, o);
    const sql = { hostFiles: o.hostFiles !== false, hostWrites: o.writeFiles === true };
    const params = cliParams(o.params === undefined ? undefined : String(o.params));
    const statement = await statementText(argument, o.file === undefined ? undefined : String(o.file));
    await withCatalog(
      g,
      async (c) => sqlCommand(c, statement, { at: await readAt(c, o), format, limit: resultLimit(o), progress: interactive(g) && format === 'table', commit: authorship(o), ...(params === undefined ? {} : { params }) }),
      'write',
      sql,
    );
  });

  resultOptions(command('shell', 'type statements one after another on one open catalog (each ends with ";"; .help, .quit); history in ~/.strata_history'))
    .option('--no-host-files', 'read no file (by default a statement may read the files it names, as strata sql)')
    .option('--write-files', 'let COPY … TO write the file it names, with your permissions')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      const format = resultFormat('shell', g, o);
      const sql = { hostFiles: o.hostFiles !== false, hostWrites: o.writeFiles === true };
      const failed = await withCatalog(g, (c) => shell(c, g.store ?? g.dir, { format, limit: resultLimit(o), interactive: process.stdin.isTTY === true }), 'write', sql);
      if (failed > 0) process.exitCode = 1;
    });

  commitOptions(command('load', 'load a CSV or Parquet file into a table, as one commit').argument('<schema.table>').argument('<file>'))
    .action(async (name: string, file: string, o: Opts, cmd: Command) => {
      const g = globals(cmd);
      const { schema, table: t } = qualified(name);
      await withCatalog(g, async (c) => say(await loadCommand(c, schema, t, file, interactive(g), authorship(o))));
    });

  commitOptions(command('compact', 'rewrite small files and those with deleted rows (row ids kept), one maintenance commit').argument('<schema.table>'))
    .option('--target-file-size <bytes>', 'the size to aim for')
    .action(async (name: string, o: Opts, cmd: Command) => {
      const g = globals(cmd);
      const { schema, table: t } = qualified(name);
      await withCatalog(g, async (c) => {
        const r = await c.compact(schema, t, { ...(o.targetFileSize === undefined ? {} : { targetFileSize: positiveInt('--target-file-size', String(o.targetFileSize)) }), ...authorship(o) });
        const line = r.snapshot === null
          ? `${schema}.${t} has nothing to compact`
          : `${schema}.${t}: ${r.removed.dataFiles} data files and ${r.removed.deleteFiles} delete files rewritten into ${r.added.length} (${r.rows} rows), snapshot ${r.snapshot}`;
        print(g, () => line, r);
      });
    });

  command('verify', 'check every invariant against the store (exit 1 on a violation)').option('--files', 'also find each file a row names, with its size')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      const report = await withCatalog(g, (c) => c.verify({ files: o.files === true }), 'read');
      print(g, () => describeVerify(report), report);
      if (!report.ok) process.exitCode = 1;
    });

  command('repair', 'rebuild the local index from the store').requiredOption('--rebuild-index', 'the only repair there is: the store is the source of truth')
    .action(async (_o, cmd: Command) => {
      const g = globals(cmd);
      // The index is a cache of the store: removing it loses nothing, and the open rebuilds it.
      await rm(path.join(g.dir, 'index'), { recursive: true, force: true });
      await withCatalog(g, async (c) => {
        const n = (await c.snapshots()).length;
        print(g, () => `index in ${path.join(g.dir, 'index')} rebuilt from the store (${n} snapshot${n === 1 ? '' : 's'})`, { snapshots: n });
      });
    });

  command('export', "write the catalog as DuckLake's catalog tables into a new SQLite file").requiredOption('--to <file>', 'the SQLite file to create')
    .option('--at <snapshot>', 'the history up to this snapshot (default: all of it)')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const at = o.at === undefined ? undefined : await snapshotOf(c, '--at', String(o.at));
        const r = await c.exportDuckLake(String(o.to), at === undefined ? {} : { at });
        print(g, () => `exported snapshots up to ${r.head} (${r.snapshots} of them), ${r.dataFiles} data file and ${r.deleteFiles} delete file versions and ${r.tags} tags to ${r.file}`, r);
      }, 'read');
    });

  command('import', 'create the catalog in --dir from a DuckLake catalog (SQLite)').requiredOption('--from <file>', 'the DuckLake SQLite file')
    .option('--copy-files', "copy the lake's files, from under its data path only, into this catalog's store (S3 too)")
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      const store = storeOption(g);
      const r = await importDuckLake(String(o.from), { dir: g.dir, ...(store ? { store } : {}), copyFiles: o.copyFiles === true });
      print(g, () => `imported ${r.snapshots} snapshots (newest ${r.head}), ${r.dataFiles} data files, ${r.deleteFiles} delete files, ${r.tags} tags into ${g.store ?? g.dir}${r.copiedFiles > 0 ? `; copied ${r.copiedFiles} files (${size(r.copiedBytes)})` : ''}`, r);
    });

  command('timeline', 'draw the history: snapshots, tags, retain-from, leases and what excision removed')
    .option('--svg <file>', 'also write the picture as an SVG')
    .option('--width <n>', 'marks in the terminal sketch', '80')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      await withCatalog(g, async (c) => {
        const t = await timelineOf(c);
        if (o.svg !== undefined) await writeFile(String(o.svg), svg(t));
        print(g, () => sketch(t, positiveInt('--width', String(o.width))) + (o.svg === undefined ? '' : `\nSVG written to ${o.svg}`), t);
      }, 'read');
    });

  command('serve', 'serve the catalog to Iceberg engines (Spark, Trino, PyIceberg, DuckDB) as a REST catalog, until SIGTERM')
    .option('--host <address>', 'the address to listen on (a non-loopback one exposes the catalog to the network)', '127.0.0.1')
    .option('--port <n>', 'the port (0: any free one; the URL printed says which)', '8181')
    .option('--token-env <name>', 'require the bearer token held in this environment variable')
    .option('--prefix <name>', 'also serve under /v1/<name>/ and tell clients to use it (a warehouse name)')
    .action(async (o: Opts & ServeFlags, cmd: Command) => {
      const g = globals(cmd);
      // Writes no commit, but writes Iceberg's metadata objects to the store: opened to write unless --read-only.
      // Loaded by the command that uses it, as the demo is: every other call is spared them (decision 0050).
      const { serveUntilStopped } = await import('./serve.js');
      await withCatalog(g, (c) => serveUntilStopped(c, o));
    });

  command('demo', 'build a small history in --dir and show time travel over it').option('--force', 'replace a demo made before')
    .action(async (o: Opts, cmd: Command) => {
      const g = globals(cmd);
      const { removeDemo, runDemo } = await import('./demo.js');
      if (o.force) await removeDemo(g.dir);
      await runDemo(g.dir, (s) => say(s));
    });

  return p;
}
