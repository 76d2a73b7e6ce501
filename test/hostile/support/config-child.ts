// Child process for config inputs that may never finish (alias bombs): reads YAML text on stdin,
// runs the config loader on it and prints one JSON line `{"outcome":"ok"|"config-error"|"<class>"}`. The
// parent kills it when it runs past its limit, so a hang cannot block the test runner.
import { parseConfigText } from '../../../src/config/index.ts';
import { ConfigError } from '../../../src/core/errors.ts';

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
let outcome: string;
try {
  parseConfigText(Buffer.concat(chunks).toString('utf8'), 'child.yaml', {});
  outcome = 'ok';
} catch (e) {
  outcome = e instanceof ConfigError ? 'config-error' : e instanceof Error ? e.constructor.name : 'non-Error';
}
process.stdout.write(`${JSON.stringify({ outcome })}\n`);
