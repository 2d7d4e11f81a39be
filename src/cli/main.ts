#!/usr/bin/env node
// The `strata` command. Argument parsing is Node's own util.parseArgs: no dependency needed for flags this simple.
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Catalog } from '../catalog/catalog.js';
import { StrataError } from '../errors.js';
import { runDemo } from './demo.js';
import { snapshotTable } from './format.js';
import { describeCatalog, describeTable, renderCatalog, renderTable } from './show.js';

const USAGE = `strata — a lakehouse catalog that keeps its whole history

usage: strata <command> [options]

commands:
  init                         create the catalog in --dir (or check an existing one)
  snapshots [--json]           the retained history, oldest first
  show [schema.table] [--at N] [--json]
                               what a reader sees at snapshot N (default: the newest)
  demo [--force]               build a small history in --dir and show time travel over it

options:
  --dir DIR      local directory: the index, and the store unless --store is given (default ./lake)
  --store PATH   a shared store directory
  --help         this text`;

const json = (v: unknown) =>
  JSON.stringify(v, (_k, x) => (x instanceof Date ? x.toISOString() : x), 2);

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      dir: { type: 'string', default: './lake' },
      store: { type: 'string' },
      at: { type: 'string' },
      json: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, ...args] = positionals;
  if (values.help || command === undefined) {
    console.log(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const open = () => Catalog.open({ dir: values.dir, ...(values.store ? { store: { path: values.store } } : {}) });
  switch (command) {
    case 'init': {
      const c = await open();
      const n = (await c.snapshots()).length;
      await c.close();
      console.log(`catalog ready in ${values.dir} (${n} snapshot${n === 1 ? '' : 's'})`);
      return 0;
    }
    case 'snapshots': {
      const c = await open();
      try {
        const snapshots = await c.snapshots();
        console.log(values.json ? json(snapshots) : snapshotTable(snapshots));
      } finally {
        await c.close();
      }
      return 0;
    }
    case 'show': {
      const c = await open();
      try {
        const at = values.at === undefined ? undefined : Number(values.at);
        if (at !== undefined && !Number.isSafeInteger(at)) throw new StrataError('INVALID_ARGUMENT', `--at takes a snapshot id, got ${values.at}`);
        const r = await c.reader(at === undefined ? {} : { snapshot: at });
        try {
          const target = args[0];
          if (target === undefined) {
            const d = await describeCatalog(r);
            console.log(values.json ? json(d) : renderCatalog(d));
          } else {
            const dot = target.indexOf('.');
            const [schema, name] = dot < 0 ? ['main', target] : [target.slice(0, dot), target.slice(dot + 1)];
            const d = await describeTable(r, schema, name);
            console.log(values.json ? json(d) : renderTable(d));
          }
        } finally {
          await r.close();
        }
      } finally {
        await c.close();
      }
      return 0;
    }
    case 'demo':
      if (values.force) await rm(values.dir, { recursive: true, force: true });
      await runDemo(values.dir, (s) => console.log(s));
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
    if (e instanceof StrataError) console.error(`strata: ${e.code}: ${e.message}`);
    else if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(`strata: ${(e as Error).message}\n\n${USAGE}`);
    else console.error(e);
    process.exitCode = 1;
  },
);
