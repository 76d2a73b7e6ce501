// The CLI contract of ARCHITECTURE.md: --help on every command, exit 0 on success, 2 on bad usage.
// Runs `main` in-process from the sources (the binary only picks dist/ or src/ and sets process.exitCode).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';

const COMMANDS = [
  'backtest',
  'run',
  'sim',
  'record',
  'import',
  'convert',
  'api',
  'sweep',
  'validate',
  'config-schema',
  'new-strategy',
  'status',
  'kill',
];

function capture(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  return { out: () => out, err: () => err };
}

const run = (...args: string[]): Promise<number> => main(['node', 'capibot', ...args]);

describe('capibot CLI', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('--help lists every command of the contract and exits 0', async () => {
    const io = capture();
    expect(await run('--help')).toBe(0);
    for (const c of COMMANDS) expect(io.out(), c).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
  });

  it.each(COMMANDS)('%s --help exits 0 with a usage line', async (command) => {
    const io = capture();
    expect(await run(command, '--help')).toBe(0);
    expect(io.out()).toContain(`Usage: capibot ${command}`);
  });

  it('an unknown command, a missing subcommand and no command at all are bad usage (exit 2)', async () => {
    const io = capture();
    expect(await run('bogus')).toBe(2);
    expect(io.err()).toContain("unknown command 'bogus'");
    expect(await run('api')).toBe(2);
    expect(await run()).toBe(2);
  });

  it('a missing required option is bad usage (exit 2)', async () => {
    capture();
    expect(await run('backtest')).toBe(2);
    expect(await run('validate')).toBe(2);
  });
});
