// The vitest config of a mutation run (test/mutation/run.ts): the project's, with only the test files of the
// group named by MUTATE_GROUP, so that Stryker's first run and its static mutants run those and no others.
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';
import { GROUPS } from './groups.js';

const name = process.env.MUTATE_GROUP ?? '';
const group = GROUPS[name];
if (group === undefined) throw new Error(`MUTATE_GROUP=${JSON.stringify(name)} names no group of test/mutation/groups.ts`);

export default defineConfig({ ...base, root: join(import.meta.dirname, '..', '..'), test: { ...base.test, include: group.tests } });
