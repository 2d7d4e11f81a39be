// `npm run build`'s second step (decision 0050): the `strata` command and the index check's child, each one
// ESM file beside the library tsc emitted. Every call is a process, so what it loads is what it pays: the
// pure-JavaScript packages every call needs (commander, and LevelDB's level, classic-level and abstract-level:
// ~80 CommonJS modules, each resolved and read on its own) are bundled in; native code, msgpackr (whose
// optional native extractor resolves from msgpackr itself) and the packages only some calls load (the AWS SDK,
// fastify, avsc, better-sqlite3, cli-progress) stay imports of the installed packages. DuckDB's Node API, which
// every statement loads, is bundled into a file of its own beside the command, required when first used.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';

// The bundled classic-level JavaScript must be the version whose native binding the command loads: the package
// depends on classic-level at one exact version, and the command resolves it from its own package.
// So must DuckDB's Node API, whose copy the command loads in place of the package.
const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
for (const name of ['classic-level', '@duckdb/node-api']) {
  const installed = createRequire(import.meta.url)(`${name}/package.json`).version;
  if (dependencies[name] !== installed) throw new Error(`package.json pins ${name} ${dependencies[name]}, but ${installed} is installed to be bundled: npm ci`);
}

// The files an earlier build split off (their names carry a hash of their contents): none may be left to be packed.
const OUT = 'dist/src/cli';
for (const f of readdirSync(OUT)) if (f.startsWith('bundle-')) rmSync(`${OUT}/${f}`);

const external = ['@duckdb/node-api', '@aws-sdk/client-s3', 'avsc', 'better-sqlite3', 'cli-progress', 'fastify', 'fs-ext', 'msgpackr', 'node-gyp-build'];

// classic-level finds its native binding from its own directory, by its own node-gyp-build; bundled, it asks
// where the package's classic-level is installed and loads both from there.
const binding = {
  name: 'classic-level binding',
  setup(build) {
    build.onLoad({ filter: /[\\/]classic-level[\\/]binding\.js$/ }, () => ({
      loader: 'js',
      contents: `const { createRequire } = require('node:module');
const manifest = require.resolve('classic-level/package.json');
module.exports = createRequire(manifest)('node-gyp-build')(require('node:path').dirname(manifest));`,
    }));
  },
};

// DuckDB's Node API as one CommonJS file, loaded by the command when a statement first needs it (on-first-use.ts);
// its native bindings stay the installed package's, found from where the Node API itself is installed.
const DUCKDB_API = 'duckdb-node-api.cjs';
const bindings = {
  name: 'duckdb bindings',
  setup(build) {
    build.onResolve({ filter: /^@duckdb\/node-bindings$/ }, () => ({ path: 'bindings', namespace: 'duckdb-bindings' }));
    build.onLoad({ filter: /.*/, namespace: 'duckdb-bindings' }, () => ({
      loader: 'js',
      contents: "module.exports = require('node:module').createRequire(require.resolve('@duckdb/node-api/package.json'))('@duckdb/node-bindings');",
    }));
  },
};
await esbuild.build({
  entryPoints: { [DUCKDB_API.replace(/\.cjs$/, '')]: '@duckdb/node-api' },
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  outdir: OUT,
  logLevel: 'warning',
  // Resolved where it is installed, on purpose (see `bindings`).
  logOverride: { 'require-resolve-not-external': 'silent' },
  plugins: [bindings],
});

await esbuild.build({
  entryPoints: { strata: 'dist/src/cli/main.js', 'index-check-child': 'dist/src/kv/index-check-child.js' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  external,
  outdir: OUT,
  // What only some commands load (the SQL plane, the DuckLake exchange, Iceberg, serving, the demo) in files of
  // its own, which the command that needs it imports.
  splitting: true,
  chunkNames: 'bundle-[name]-[hash]',
  logLevel: 'warning',
  logOverride: { 'require-resolve-not-external': 'silent' },
  // The bundled CommonJS packages require() what stays outside: an ES module has no require of its own.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [binding],
  define: { STRATA_BUNDLED_COPIES: JSON.stringify({ '@duckdb/node-api': `./${DUCKDB_API}` }) },
});
