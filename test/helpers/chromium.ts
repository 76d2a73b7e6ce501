// Debian's headless chromium for the browser tests (the report page, the web console): where to find
// it and the flags every run starts it with (no sandbox in CI containers, no network chatter of its own).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** $CHROMIUM_BIN when set; otherwise chromium or chromium-browser on PATH, or /usr/bin/chromium. */
export function findChromium(): string | undefined {
  const explicit = process.env.CHROMIUM_BIN;
  if (explicit) return isExecutable(explicit) ? explicit : undefined;
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const candidates = dirs.flatMap((dir) => [join(dir, 'chromium'), join(dir, 'chromium-browser')]);
  return [...candidates, '/usr/bin/chromium'].find(isExecutable);
}

/** The flags of every headless run, with its own throw-away profile directory. */
export function headlessArgs(profile: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
  ];
}
