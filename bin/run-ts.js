#!/usr/bin/env node
// Runs one TypeScript entry file (bench, chaos, scripts) through tsx: `node bin/run-ts.js FILE [args]`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node bin/run-ts.js FILE [args...]\n');
  process.exit(2);
}
process.argv.splice(2, 1);
register();
await import(pathToFileURL(resolve(entry)).href);
