// Frames strings that open with U+FEFF, of every length around the 64 bytes where msgpackr changes how it
// decodes text, as values, map keys and nested, and prints those that did not read back as they were given.
// argv[2] says what the host loaded before the library: 'nothing', or msgpackr itself ('import' / 'require').
import { createRequire } from 'node:module';

const host = process.argv[2];
if (host === 'require') createRequire(import.meta.url)('msgpackr');
if (host === 'import') await import('msgpackr');
const { frame, checkedFrame, unframe } = await import('../../../keys/framing.js');

const texts: string[] = [];
for (let n = 0; n <= 300; n++) texts.push(`\uFEFF${'x'.repeat(n)}`, `\uFEFF${'é'.repeat(n)}`, `\uFEFF\uFEFF${'😀'.repeat(n >> 1)}`);
const wrong: string[] = [];
for (const text of texts) {
  for (const value of [{ text }, { [text]: 1 }, { list: [1, { deep: [text, text] }] }]) {
    for (const framed of [frame(value), checkedFrame(value)]) {
      if (JSON.stringify(unframe(framed)) !== JSON.stringify(value)) wrong.push(JSON.stringify(value).slice(0, 40));
    }
  }
}
const { isNativeAccelerationEnabled } = await import('msgpackr');
process.stdout.write(JSON.stringify({ native: isNativeAccelerationEnabled, checked: texts.length * 6, wrong: wrong.length, first: wrong[0] ?? null }));
