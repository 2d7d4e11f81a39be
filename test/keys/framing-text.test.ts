// Stored text reads back as it was written, whichever way msgpackr decodes it. Without its native extractor
// (a platform it has no build for, MSGPACKR_NATIVE_ACCELERATION_DISABLED, the command's bundle) msgpackr
// decodes a string of over 64 bytes with a TextDecoder, which drops a leading U+FEFF: a commit message or a
// view's SQL opening with one was changed by being stored. Each case runs in a process of its own, as the
// extractor is chosen when msgpackr loads.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('./children/frame-text.ts', import.meta.url));

function framedTexts(host: 'nothing' | 'import' | 'require', disabled: boolean): Promise<{ native: boolean; checked: number; wrong: number; first: string | null }> {
  const env = { ...process.env, MSGPACKR_NATIVE_ACCELERATION_DISABLED: disabled ? 'true' : 'false' };
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', child, host], { env }, (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(JSON.parse(stdout)))),
  );
}

describe('text in a frame', () => {
  it.each([
    ['nothing', true],
    ['import', true],
    ['require', true],
    ['nothing', false],
  ] as const)('reads back with a leading U+FEFF when the host loaded %s first, native extraction disabled: %s', async (host, disabled) => {
    const r = await framedTexts(host, disabled);
    expect(r.checked).toBe(301 * 3 * 6);
    expect(r, `first changed: ${r.first}`).toMatchObject({ wrong: 0 });
    // The case it names: the extractor is there (this machine has msgpackr's build) unless disabled.
    expect(r.native).toBe(!disabled);
  });
});
