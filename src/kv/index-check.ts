// Reading an index whose bytes nobody vouches for (it was not closed cleanly, so it has no seal) is done in
// a child process first: on some damaged blocks LevelDB fails an assertion and aborts the whole process,
// which must not be the caller's. The child opens the index (LevelDB's own recovery runs there), reads every
// key and value, and checks that each is one of ours; the parent opens the index only if the child came
// back clean.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
/**
 * The child's script beside this module: `.ts` under a TypeScript loader (tests), `.js` once built — also
 * beside the command's CommonJS bundle (`.cjs`), since the child is an ES module of its own.
 */
const ext = path.extname(self) === '.ts' ? '.ts' : '.js';
const script = path.join(path.dirname(self), `index-check-child${ext}`);

export type CheckOutcome =
  | { ok: true }
  /** Damage: the child's message, or the signal LevelDB ended it with. */
  | { ok: false; locked: false; reason: string }
  /** Another process holds the index open: nothing is known, and it must not be touched. */
  | { ok: false; locked: true; reason: string };

export async function checkInChild(dir: string): Promise<CheckOutcome> {
  // Loaded here, when an index needs the check: every `strata` call is a process, and most never spawn one.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const loader = ext === '.ts' ? ['--import', 'tsx'] : [];
    // The child runs beside its script, so a path relative to this process's directory would name another
    // place there: LevelDB found nothing, the check failed, and a sound index was rebuilt from the store.
    const child = spawn(process.execPath, [...loader, script, path.resolve(dir)], { cwd: path.dirname(self), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const said = stderr.trim().split('\n').at(-1) || `exit ${code}`;
      if (code === 0) resolve({ ok: true });
      else if (code === 3) resolve({ ok: false, locked: true, reason: said });
      else resolve({ ok: false, locked: false, reason: signal !== null ? `LevelDB ended a check of it with ${signal}` : said });
    });
  });
}
