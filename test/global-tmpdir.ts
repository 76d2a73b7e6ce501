// Every test run gets a temporary directory of its own, made TMPDIR for the test workers and every
// process they start (CLI runs, simulators, Redis, Chromium), and removed when the run ends. Tests
// that make scratch directories under os.tmpdir() need not each remember to remove them, and a run
// that is interrupted, or a process a test kills outright, leaves its files in one place: nothing
// accumulates in the machine's /tmp from one run to the next.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env['TMPDIR'];
  const dir = mkdtempSync(join(tmpdir(), 'capibot-tests-'));
  process.env['TMPDIR'] = dir;
  return () => {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
