#!/usr/bin/env node
// The installed `capibot` binary runs the TypeScript sources directly through tsx's loader:
// no build step by hand, and the same loader later imports user strategies (.ts) by path.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/entry.ts');
