// What every command shares: the catalog its global options name (a directory, or S3 with credentials from
// the environment), output as text or JSON, listings cut by --limit and --offset, and arguments that name a
// snapshot by id, time or tag.
import { Catalog, type OpenOptions } from '../catalog/catalog.js';
import { StrataError } from '../errors.js';
import { parseSnapshotName } from '../snapshot-names.js';
import type { S3StoreOptions } from '../store/s3-store.js';
import { count, printable } from './format.js';
import { writeNow } from './output.js';

export interface GlobalOptions {
  dir: string;
  store?: string;
  endpoint?: string;
  region?: string;
  pathStyle?: boolean;
  readOnly?: boolean;
  json?: boolean;
}

/** A usage mistake: exit code 2, as the parser's own. */
export class UsageError extends StrataError {
  constructor(message: string) {
    super('INVALID_ARGUMENT', message);
  }
}

/** Every line goes through this: names in it come from whoever wrote the catalog. */
export const say = (text: string) => writeNow(`${printable(text)}\n`);
export const json = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Date ? x.toISOString() : typeof x === 'bigint' ? Number(x) : x), 2);

/** Prints `data` as JSON with --json, else the text `human` makes of it. */
export const print = (g: GlobalOptions, human: () => string, data: unknown) => say(g.json ? json(data) : human());

/** `scheme://…`: a URL, never a directory (a directory named `s3:` is what taking one for a path made). */
const URL_LIKE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s;

/**
 * The store `--store` names: a directory, or `s3://bucket/prefix` (the scheme in any case, as URLs have it).
 * Any other URL, an `s3:` without its `//` and an S3 URL without a bucket are mistakes, refused before
 * anything is made. Credentials never come from the command line: the AWS SDK reads them from the
 * environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE, …).
 */
export function storeOption(g: GlobalOptions): { path: string } | { s3: S3StoreOptions } | undefined {
  const s3Flags = g.endpoint !== undefined || g.region !== undefined || g.pathStyle === true;
  if (g.store === undefined) {
    if (s3Flags) throw new UsageError('--endpoint, --region and --path-style go with --store s3://bucket/prefix');
    return undefined;
  }
  const url = URL_LIKE.exec(g.store);
  if (url === null) {
    if (/^s3:/i.test(g.store)) throw new UsageError(`--store ${g.store} is neither a directory nor an S3 URL; an S3 store is s3://bucket or s3://bucket/prefix`);
    if (s3Flags) throw new UsageError(`--endpoint, --region and --path-style are for S3, and --store ${g.store} is a directory`);
    return { path: g.store };
  }
  if (url[1]!.toLowerCase() !== 's3') {
    throw new UsageError(`--store takes a directory or s3://bucket/prefix; ${url[1]}:// is not a store Strata knows (a directory, or S3 and services compatible with it)`);
  }
  const [bucket = '', ...prefix] = url[2]!.split('/');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(bucket)) {
    throw new UsageError(`--store ${g.store} names ${bucket === '' ? 'no bucket' : `the bucket ${JSON.stringify(bucket)}, which is not a bucket name`}; an S3 store is s3://bucket or s3://bucket/prefix`);
  }
  if (/@/.test(g.endpoint ?? '')) throw new UsageError('--endpoint must not carry credentials; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment');
  const endpoint = g.endpoint ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const region = g.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const within = prefix.join('/').replace(/\/+$/, '');
  return {
    s3: {
      bucket,
      ...(within ? { prefix: within } : {}),
      ...(endpoint ? { endpoint } : {}),
      region,
      ...(g.pathStyle || process.env.S3_FORCE_PATH_STYLE === 'true' ? { forcePathStyle: true } : {}),
    },
  };
}

/**
 * What a command does with the catalog: reads it (opened read-only, so it writes nothing to the store and
 * works on a read-only one), writes to it (read-only only with --read-only, which then refuses the write), or
 * creates it where there is none (init).
 */
export type Access = 'read' | 'write' | 'create';

/** Opens the catalog of the global options for `access` (with `sql`, how its SQL runs); only `init` (and import) create one. */
export async function withCatalog<T>(g: GlobalOptions, fn: (c: Catalog) => Promise<T>, access: Access = 'write', sql: OpenOptions['sql'] = {}): Promise<T> {
  const store = storeOption(g);
  const readOnly = access === 'read' || g.readOnly === true;
  const c = await Catalog.open({ dir: g.dir, create: access === 'create', readOnly, sql, ...(store ? { store } : {}) }).catch((e: unknown) => {
    if (e instanceof StrataError && e.code === 'NOT_FOUND') {
      const where = g.store ?? g.dir;
      throw new StrataError('NOT_FOUND', `there is no catalog in ${where}; nothing was created (strata init --dir ${g.dir}${g.store ? ` --store ${g.store}` : ''} creates one)`);
    }
    throw e;
  });
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

/** The snapshot id `arg` names (an id, a time, a tag or `tag:NAME`: src/snapshot-names.ts). */
export async function snapshotOf(c: Catalog, what: string, arg: string): Promise<number> {
  const sel = parseSnapshotName(what, arg);
  if ('snapshot' in sel) return sel.snapshot;
  const r = await c.reader(sel).catch((e: unknown) => {
    // The tags are not listed: their names may mean something to people who cannot read them (docs/DESIGN.md §4).
    if (!(e instanceof StrataError && e.code === 'TAG_NOT_FOUND')) throw e;
    throw new StrataError(
      'TAG_NOT_FOUND',
      `${what} ${JSON.stringify(arg)} is not a snapshot id (an integer ≥ 0), a time (such as 2026-03-01T12:00Z) or a tag that exists; strata tag list lists the tags`,
      { cause: e },
    );
  });
  try {
    return r.snapshot.id;
  } finally {
    await r.close();
  }
}

export interface Paging {
  limit?: string;
  offset?: string;
}

/** A flag's whole-number value, at least `least` (1: a positive one). */
export function wholeNumber(flag: string, v: string, least = 0): number {
  if (!/^\d+$/.test(v) || Number(v) < least) throw new UsageError(`${flag} takes a ${least > 0 ? 'positive ' : ''}whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** Text listings show this many lines unless --limit says otherwise (0: all); JSON shows all. */
export const TEXT_LIMIT = 100;

/** Where the page --offset and --limit ask for starts, and how long it is (0: to the end). */
export function pageBounds(g: GlobalOptions, p: Paging): { offset: number; limit: number } {
  const offset = p.offset === undefined ? 0 : wholeNumber('--offset', p.offset);
  const asked = p.limit === undefined ? undefined : wholeNumber('--limit', p.limit);
  return { offset, limit: asked ?? (g.json ? 0 : TEXT_LIMIT) };
}

/**
 * The part of `items` --limit and --offset ask for, and a line saying what was left out. With --json and
 * either option, the data is { total, offset, limit, items }; without them, the whole array.
 */
export function page<T>(g: GlobalOptions, p: Paging, items: readonly T[], noun: string): { items: T[]; data: unknown; note: string } {
  const { offset, limit } = pageBounds(g, p);
  return pageOf(g, p, items.slice(offset, limit === 0 ? undefined : offset + limit), items.length, noun);
}

/** As page, for a page already cut from `total` items (the rest never read). */
export function pageOf<T>(g: GlobalOptions, p: Paging, shown: T[], total: number, noun: string): { items: T[]; data: unknown; note: string } {
  const { offset, limit } = pageBounds(g, p);
  const note =
    shown.length < total ? `${shown.length === 0 ? 'none' : `${offset + 1}–${offset + shown.length}`} of ${count(total)} ${noun} shown; --limit N (0: all) and --offset N show others` : '';
  const data = p.limit === undefined && p.offset === undefined ? shown : { total, offset, limit, items: shown };
  return { items: shown, data, note };
}

/** `schema.table`, or `table` in schema main. */
export function qualified(name: string): { schema: string; table: string } {
  const dot = name.indexOf('.');
  return dot < 0 ? { schema: 'main', table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}
