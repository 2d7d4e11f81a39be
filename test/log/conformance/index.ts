// The conformance suite every commit-log layout runs (as every ObjectStore runs test/store/conformance/):
// src/log/commit-log.ts is the contract, and a layout that fails here is not a log Strata can stand on. One
// module per operation, composed here and gated by what the layout says it supports. The suite reaches the
// log only through CommitLog; what the interface cannot do (damage stored bytes, open the log again as
// another process would, hold a reader between two looks) the layout's harness does.
import { describe } from 'vitest';
import { append } from './append.js';
import { appendOwn } from './append-own.js';
import { beingWritten } from './being-written.js';
import { checkpoints } from './checkpoints.js';
import type { LogHarness, LogSupports } from './common.js';
import { compaction } from './compaction.js';
import { damage } from './damage.js';
import { missingEntries } from './missing-entries.js';
import { read } from './read.js';
import { readForward } from './read-forward.js';
import { writtenAt } from './written-at.js';

export type { LogHarness, LogSupports } from './common.js';

/** `make` returns a harness on an empty log, private to the calling test. */
export function commitLogConformance(name: string, make: () => Promise<LogHarness>, supports: LogSupports): void {
  const suite = { make, supports };
  describe(`CommitLog conformance: ${name}`, () => {
    append(suite);
    appendOwn(suite);
    read(suite);
    writtenAt(suite);
    readForward(suite);
    damage(suite);
    missingEntries(suite);
    if (supports.entriesByName) beingWritten(suite);
    compaction(suite);
    checkpoints(suite);
  });
}
