// Stryker ignorer 'prose': string and template literals that contain whitespace are human-readable
// texts (error messages, anomaly details, warning messages, notes, reasons) and are not mutated.
// Codes callers switch on (anomaly kinds, warning codes, event kinds, statuses, config paths) are
// single words and stay mutated. A literal is also kept when it is compared against (`x === 'a b'`).
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

/** @param {import('@babel/core').NodePath} path */
function isProse(path) {
  const node = path.node;
  let text;
  if (node.type === 'StringLiteral') text = node.value;
  else if (node.type === 'TemplateLiteral') text = node.quasis.map((q) => q.value.cooked ?? '').join('');
  else return false;
  if (!/\s/.test(text)) return false;
  const parent = path.parent;
  if (parent?.type === 'BinaryExpression' || parent?.type === 'SwitchCase') return false;
  return true;
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'prose', {
    shouldIgnore(path) {
      return isProse(path) ? 'human-readable text (log, error or anomaly message), not a code' : undefined;
    },
  }),
];
