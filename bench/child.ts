// Runs a script of the suite, compiled as the rest of it is (`npm run bench` builds dist-bench/ first), in its
// own Node process (its own heap, its own peak RSS, or one of several writers) and returns what it printed;
// a non-zero exit is an error carrying its stderr.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
