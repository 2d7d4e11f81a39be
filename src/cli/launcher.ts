#!/usr/bin/env node
// The `strata` command as installed (the package's `bin`, built into dist/src/cli/strata.cjs by bundle.mjs):
// the command itself is the bundle beside this file, run from V8's code cache (code-cache.ts, decision 0053).
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundle, userCacheDir } from './code-cache.js';

/** The bundle's build, defined by bundle.mjs: a hash of its bytes, which names its cache. */
declare const STRATA_COMMAND_BUILD: string;

runBundle(path.join(path.dirname(fileURLToPath(import.meta.url)), 'strata-command.cjs'), STRATA_COMMAND_BUILD, userCacheDir());
