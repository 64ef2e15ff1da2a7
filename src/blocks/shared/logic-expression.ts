// Expressions of the Logic Actuator (reference §6.8): `a`-`z` are the digital comparisons by
// index, `A`-`Z` the analog ones, with `!`, `&`, `|`, `^` and brackets; nothing else, not even
// spaces. Evaluation follows the reference controller so that expressions keep their meaning:
// there is no operator precedence; a binary operator takes everything after it, up to the end
// of the current bracket level, as its right operand (`a&b|c` is `a&(b|c)`), and `!` negates
// that whole remainder (`!a&b` is `!(a&b)`). Use brackets to be explicit.
import type { LogicResultName } from './enums.js';

export interface LogicOutcome {
  result: LogicResultName;
  /** Index in the expression of the character where evaluation failed; 0 without error. */
  errorPos: number;
}

const isError = (r: LogicResultName) => r !== 'RESULT_TRUE' && r !== 'RESULT_FALSE' && r !== 'RESULT_EMPTY';
const bool = (b: boolean): LogicResultName => (b ? 'RESULT_TRUE' : 'RESULT_FALSE');

/** `digital[i]` / `analog[i]` are the comparison results (TRUE, FALSE or an error). */
export function evaluateExpression(
  expression: string,
  digital: LogicResultName[],
  analog: LogicResultName[],
): LogicOutcome {
  if (expression.length === 0) return { result: 'RESULT_EMPTY', errorPos: 0 };
  let pos = 0;
  let errorPos = 0;
  const fail = (result: LogicResultName, at: number): LogicResultName => {
    errorPos = at;
    return result;
  };

  // Evaluates from `pos` to the end of the current bracket level (consuming its ')').
  const sequence = (level: number): LogicResultName => {
    let value: LogicResultName | null = null;
    while (pos < expression.length) {
      const at = pos;
      const c = expression[pos++]!;
      if (c >= 'a' && c <= 'z') {
        if (value !== null) return fail('RESULT_UNEXPECTED_COMPARISON', at);
        const r = digital[c.charCodeAt(0) - 97];
        if (r === undefined) return fail('RESULT_UNDEFINED_DIGITAL_COMPARE', at);
        if (isError(r)) return fail(r, at);
        value = r;
      } else if (c >= 'A' && c <= 'Z') {
        if (value !== null) return fail('RESULT_UNEXPECTED_COMPARISON', at);
        const r = analog[c.charCodeAt(0) - 65];
        if (r === undefined) return fail('RESULT_UNDEFINED_ANALOG_COMPARE', at);
        if (isError(r)) return fail(r, at);
        value = r;
      } else if (c === '(') {
        if (value !== null) return fail('RESULT_UNEXPECTED_OPEN_BRACKET', at);
        const inner = sequence(level + 1);
        if (isError(inner)) return inner;
        value = inner;
      } else if (c === ')') {
        if (level === 0) return fail('RESULT_UNEXPECTED_CLOSE_BRACKET', at);
        if (value === null) return fail('RESULT_EMPTY_SUBSTRING', at);
        return value;
      } else if (c === '!') {
        if (value !== null) return fail('RESULT_UNEXPECTED_OPERATOR', at);
        const rest = sequence(level);
        if (isError(rest)) return rest;
        return bool(rest !== 'RESULT_TRUE');
      } else if (c === '&' || c === '|' || c === '^') {
        if (value === null) return fail('RESULT_UNEXPECTED_OPERATOR', at);
        const rest = sequence(level);
        if (isError(rest)) return rest;
        const l = value === 'RESULT_TRUE';
        const r = rest === 'RESULT_TRUE';
        return bool(c === '&' ? l && r : c === '|' ? l || r : l !== r);
      } else {
        return fail('RESULT_UNEXPECTED_CHARACTER', at);
      }
    }
    if (level > 0) return fail('RESULT_MISSING_CLOSE_BRACKET', expression.length);
    if (value === null) return fail('RESULT_EMPTY_SUBSTRING', expression.length);
    return value;
  };

  const result = sequence(0);
  return { result, errorPos: isError(result) ? errorPos : 0 };
}
