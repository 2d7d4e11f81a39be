// Runs a script of the suite, compiled as the rest of it is (`npm run bench` builds dist-bench/ first), in its
// own Node process (its own heap, its own peak RSS, or one of several writers) and returns what it printed;
// a non-zero exit is an error carrying its stderr.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * This process's peak RSS in bytes, for a script runScript started. Linux's getrusage (Node's
 * `resourceUsage().maxRSS`) carries the spawning process's RSS across the exec: a child of a bench process
 * that had grown to 273 MiB building a catalog reported 273 MiB for every operation. VmHWM is the peak of
 * this process's own memory.
 */
export function peakRss(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) * 1024;
  } catch {
    // No /proc: another system, whose getrusage starts afresh at exec.
  }
  return process.resourceUsage().maxRSS * 1024;
}

export function runScript(script: URL, args: string[], nodeFlags: string[] = []): Promise<string> {
  const file = fileURLToPath(script);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...nodeFlags, file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${file} exited with ${code}: ${err}`))));
  });
}
