// One run of the fault sweep in its own process, for the kills: sweep-child.ts <root> <layout> <mode> <at>.
// Prints each acknowledgement as a JSON line the moment the caller has it (a synchronous write, so a kill
// right after it cannot lose it), then the run's result.
import * as fs from 'node:fs';
import type { LogLayout } from '../../src/log/open-log.js';
import { Injector, type Mode } from './injector.js';
import { runWorkload } from './workload.js';

const [root, layout, mode, at] = process.argv.slice(2) as [string, LogLayout, Mode | 'count', string];
const injector = new Injector({ mode, at: Number(at) });
const result = await runWorkload(root, layout, injector.store(root), (ack) => fs.writeSync(1, `ack ${JSON.stringify(ack)}\n`));
fs.writeSync(1, `result ${JSON.stringify({ ...result, operations: injector.operations.length })}\n`);
