// A progress bar on the terminal (cli-progress), the package loaded by the first bar drawn: most calls draw none.
import type * as CliProgress from 'cli-progress';
import { onFirstUse } from '../on-first-use.js';

const cliProgress = onFirstUse<typeof CliProgress>('cli-progress');

export type Bar = CliProgress.SingleBar;

/** A bar in `format` (cli-progress's placeholders), cleared when it stops. */
export const newBar = (format: string): Bar => new (cliProgress().SingleBar)({ format, clearOnComplete: true });
