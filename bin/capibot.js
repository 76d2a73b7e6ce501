#!/usr/bin/env node
// The installed `capibot` binary runs the compiled framework: dist/, built from src/ by
// scripts/build.js (the `prepare` script of `npm ci`). A checkout whose src/ changed after that build
// never runs stale code: it is rebuilt first (about a second, once), and when it cannot be rebuilt
// the TypeScript sources run through tsx instead. CAPIBOT_FROM_SOURCE=1 always runs the sources.
// The TypeScript loader is otherwise registered only to import a strategy file (src/strategy/loader.ts).
import { build, isBuildFresh } from '../scripts/build.js';

async function useCompiled() {
  if (process.env.CAPIBOT_FROM_SOURCE === '1') return false;
  if (isBuildFresh()) return true;
  try {
    await build();
    return true;
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    process.stderr.write(`capibot: cannot rebuild dist/ (${why}); running the TypeScript sources\n`);
    return false;
  }
}

if (await useCompiled()) {
  await import('../dist/cli/entry.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/entry.ts');
}
