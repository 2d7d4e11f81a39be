// `npm run build`'s second step (decisions 0050, 0053): the `strata` command and the index check's child,
// built beside the library tsc emitted (under `dist`, or the directory given: the bench builds its own). Every
// call is a process, so what it loads is what it pays: the pure-JavaScript packages every call needs
// (commander, msgpackr, and LevelDB's level, classic-level and abstract-level: ~80 CommonJS modules, each
// resolved and read on its own) are bundled in; native code and the packages only some calls load (the AWS
// SDK, fastify, avsc, better-sqlite3, cli-progress) stay requires of the installed packages. The command is
// one CommonJS file, which the package's `bin` runs from V8's code cache (code-cache.ts); DuckDB's Node API,
// which every statement loads, is bundled into a file of its own beside it, required when first used.
import { createHash } from 'node:crypto';
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

const ROOT = process.argv[2] ?? 'dist';
const OUT = `${ROOT}/src/cli`;
// What earlier builds made that this one does not (files split off, the ES module command before decision
// 0053): none may be left to be packed.
for (const f of readdirSync(OUT)) if (f.startsWith('bundle-') || f === 'strata.js') rmSync(`${OUT}/${f}`);

const external = ['@duckdb/node-api', '@aws-sdk/client-s3', 'avsc', 'better-sqlite3', 'cli-progress', 'fastify', 'fs-ext', 'node-gyp-build'];

// What every file built here shares: bundled for Node, beside the library, quiet unless something is wrong;
// the CommonJS ones as .cjs, since the package's own .js files are ES modules.
const common = { bundle: true, platform: 'node', outdir: OUT, logLevel: 'warning' };
const commonJs = { ...common, format: 'cjs', outExtension: { '.js': '.cjs' } };

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

// msgpackr loads its optional native string extractor when it starts, if it can: ~5 ms of every call (its
// loader runs detect-libc, which reads the node binary to learn the libc), more than the extractor saves on
// what one call decodes. The command decodes with msgpackr's JavaScript, the values the same once its text
// decoder keeps a leading U+FEFF (msgpackrKeepsByteOrderMarks below: the two go together).
const noNativeExtractor = {
  name: 'msgpackr without its native extractor',
  setup(build) {
    build.onResolve({ filter: /^msgpackr-extract$/ }, () => ({ path: 'none', namespace: 'no-native-extractor' }));
    build.onLoad({ filter: /.*/, namespace: 'no-native-extractor' }, () => ({ loader: 'js', contents: 'module.exports = null;' }));
  },
};

/**
 * A plugin that bundles the file `file` matches with the text `from` in it replaced by `to`; the build fails if
 * the file no longer holds `from` (a new release of the package), rather than quietly bundling it unchanged.
 */
const rewrite = (name, file, from, to) => ({
  name,
  setup(build) {
    build.onLoad({ filter: file }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(from)) throw new Error(`${args.path} no longer holds ${JSON.stringify(from)}: look again at the plugin "${name}" in bundle.mjs`);
      return { loader: 'js', contents: source.replace(from, to) };
    });
  },
});

// commander requires node:child_process when it loads (~3 ms of every call), for subcommands that are
// executables of their own, which the command has none of: it is required when commander first spawns.
const commanderSpawnsLazily = rewrite(
  'commander loads child_process when it spawns',
  /[\\/]commander[\\/]lib[\\/]command\.js$/,
  "const childProcess = require('node:child_process');",
  "const childProcess = { get spawn() { return require('node:child_process').spawn; } };",
);

// Text keeps a leading U+FEFF, which `new TextDecoder()` drops ('\uFEFFabc' read back as 'abc'): in msgpackr,
// which decodes a string of over 64 bytes with one when it has no native extractor (the command's case), and in
// DuckDB's Node API, every text value (the library replaces the installed copy's: keepByteOrderMarks in
// src/sql/engine.ts).
const IGNORE_BOM = "new TextDecoder('utf-8', { ignoreBOM: true })";
const msgpackrKeepsByteOrderMarks = rewrite('msgpackr text keeps byte-order marks', /[\\/]msgpackr[\\/]unpack\.js$/, 'decoder = new TextDecoder();', `decoder = ${IGNORE_BOM};`);
const duckdbKeepsByteOrderMarks = rewrite(
  'duckdb text keeps byte-order marks',
  /[\\/]@duckdb[\\/]node-api[\\/]lib[\\/]vectors[\\/]dataAccessors\.js$/,
  'exports.textDecoder = new TextDecoder();',
  `exports.textDecoder = ${IGNORE_BOM};`,
);

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
  ...commonJs,
  entryPoints: { [DUCKDB_API.replace(/\.cjs$/, '')]: '@duckdb/node-api' },
  // Resolved where it is installed, on purpose (see `bindings`).
  logOverride: { 'require-resolve-not-external': 'silent' },
  plugins: [bindings, duckdbKeepsByteOrderMarks],
});

// Bundled CommonJS has no import.meta: the modules that find files beside themselves ask where the bundle is.
// The banner comes before esbuild's own "use strict", which would then be no directive: it opens with one, so
// the command runs strict, as the ES modules it is built from do.
const whereBundled = {
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "'use strict';\nvar __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
};

await esbuild.build({
  ...commonJs,
  entryPoints: { 'strata-command': `${ROOT}/src/cli/main.js` },
  external,
  // import() of a package left outside (fastify, the AWS SDK) as require(): code compiled by vm.Script has no
  // loader for import(), and on Node 20 one given to it is lost when the code comes from the cache.
  supported: { 'dynamic-import': false },
  logOverride: { 'require-resolve-not-external': 'silent' },
  plugins: [binding, noNativeExtractor, msgpackrKeepsByteOrderMarks, commanderSpawnsLazily],
  ...whereBundled,
  define: { ...whereBundled.define, STRATA_BUNDLED_COPIES: JSON.stringify({ '@duckdb/node-api': `./${DUCKDB_API}` }) },
});

// The index check's child is an ES module (it awaits at its top level), spawned from beside the command.
await esbuild.build({
  ...common,
  entryPoints: { 'index-check-child': `${ROOT}/src/kv/index-check-child.js` },
  format: 'esm',
  external,
  logOverride: { 'require-resolve-not-external': 'silent' },
  // The bundled CommonJS packages require() what stays outside: an ES module has no require of its own.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [binding, noNativeExtractor, msgpackrKeepsByteOrderMarks],
});

// The `bin`: runs the command from the code cache its build names (a hash of the bundle's bytes).
await esbuild.build({
  ...commonJs,
  entryPoints: { strata: `${ROOT}/src/cli/launcher.js` },
  ...whereBundled,
  define: {
    ...whereBundled.define,
    STRATA_COMMAND_BUILD: JSON.stringify(createHash('sha256').update(readFileSync(`${OUT}/strata-command.cjs`)).digest('hex').slice(0, 16)),
  },
});
