// Stryker ignorers for the kernels (stryker.config.js `ignorers`). Every reason starts with
// "[ignorer]" so that scripts/mutation/run.js can count them apart from `// Stryker disable` comments.
//
// 'prose': string and template literals that contain whitespace are human-readable texts (error
// messages, anomaly details, warning messages, notes, reasons) and are not mutated. Codes callers
// switch on (anomaly kinds, warning codes, event kinds, statuses, config paths) are single words and
// stay mutated. A literal that is compared against (`x === 'a b'`) is kept too.
//
// 'case-labels': the label of a `case` is not replaced by "". Every switch in the kernels is on a
// union-typed discriminant (an event kind) and checked exhaustive by TypeScript and by the
// switch-exhaustiveness-check lint rule: `case ''` does not type-check, so the mutant is not a program
// the compiler would accept. (The Stryker TypeScript checker would mark these CompileError, but it
// costs minutes per kernel on two cores.) Removing a case's body (ConditionalExpression) still happens.
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

/** @param {import('@babel/core').NodePath} path */
function isCaseLabel(path) {
  return path.node.type === 'StringLiteral' && path.parent?.type === 'SwitchCase' && path.key === 'test';
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'prose', {
    shouldIgnore(path) {
      return isProse(path)
        ? '[ignorer] human-readable text (log, error or anomaly message), not a code'
        : undefined;
    },
  }),
  declareValuePlugin(PluginKind.Ignore, 'case-labels', {
    shouldIgnore(path) {
      return isCaseLabel(path) ? '[ignorer] case label of an exhaustive switch on a union type' : undefined;
    },
  }),
];
