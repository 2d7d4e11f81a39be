// `npm run build`'s second step (decision 0050): the `strata` command and the index check's child, each one
// ESM file beside the library tsc emitted. Every call is a process, so what it loads is what it pays: the
// pure-JavaScript packages every call needs (commander, and LevelDB's level, classic-level and abstract-level:
// ~80 CommonJS modules, each resolved and read on its own) are bundled in; native code, msgpackr (whose
// optional native extractor resolves from msgpackr itself) and the packages only some calls load (DuckDB, the
// AWS SDK, fastify, avsc, better-sqlite3, cli-progress) stay imports of the installed packages.
import * as esbuild from 'esbuild';

const external = ['@duckdb/node-api', '@aws-sdk/client-s3', 'avsc', 'better-sqlite3', 'cli-progress', 'fastify', 'fs-ext', 'msgpackr', 'node-gyp-build'];

// classic-level finds its native binding from its own directory; bundled, it asks where level's classic-level is installed.
const binding = {
  name: 'classic-level binding',
  setup(build) {
    build.onLoad({ filter: /[\\/]classic-level[\\/]binding\.js$/ }, () => ({
      loader: 'js',
      contents: `const path = require('node:path');
const level = path.dirname(require.resolve('level'));
module.exports = require('node-gyp-build')(path.dirname(require.resolve('classic-level/package.json', { paths: [level] })));`,
    }));
  },
};

await esbuild.build({
  entryPoints: { strata: 'dist/src/cli/main.js', 'index-check-child': 'dist/src/kv/index-check-child.js' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  external,
  outdir: 'dist/src/cli',
  logLevel: 'warning',
  // The bundled CommonJS packages require() what stays outside: an ES module has no require of its own.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [binding],
});
