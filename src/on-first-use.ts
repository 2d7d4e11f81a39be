// Packages that most processes never use, loaded the first time code asks for them. Every CLI call is a
// process (docs/DESIGN.md §7), and requiring avsc, better-sqlite3 and cli-progress up front cost ~25 ms of
// each call, though only one that writes Iceberg manifests, reads or writes a DuckLake file or draws a bar
// needs one. Synchronous, so the code that uses them stays as it was; their types are imported as types.
import { createRequire } from 'node:module';

/**
 * Packages the `strata` command's build bundled into one file beside it (src/cli/bundle.mjs defines this at
 * bundle time; the library has none): DuckDB's Node API is 124 CommonJS modules, ~30 ms of every `strata sql`
 * to resolve and read one by one.
 */
declare const STRATA_BUNDLED_COPIES: Readonly<Record<string, string>> | undefined;
const copies: Readonly<Record<string, string>> = typeof STRATA_BUNDLED_COPIES === 'undefined' ? {} : STRATA_BUNDLED_COPIES;

const load = createRequire(import.meta.url);

/**
 * The package `name`, required the first time the returned function is called; `prepare`, if given, runs once
 * on it then, told whether it is the command's bundled copy or the installed package.
 */
export function onFirstUse<T>(name: string, prepare?: (loaded: T, bundled: boolean) => void): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      const it = load(copies[name] ?? name) as T;
      prepare?.(it, copies[name] !== undefined);
      loaded = it;
    }
    return loaded;
  };
}

/**
 * node:crypto, ~4 ms to load: a `strata` call that reads names nothing at random and hashes nothing, and
 * the catalog's modules that do (temporary names, uuids, Iceberg's object names) are loaded by every call.
 */
export const nodeCrypto = onFirstUse<typeof import('node:crypto')>('node:crypto');
