// ActuatorLogic: switches a digital actuator on when a boolean expression over digital and
// analog comparisons is true (reference §5.6, §6.8). Anything but TRUE, errors included,
// switches the target off.
import { f } from '../codec/fields.js';
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, type UpdateContext } from '../runtime/types.js';
import { AnalogCompareOp, DigitalCompareOp, LogicResult, type LogicResultName } from './shared/enums.js';
import { digitalState } from './shared/fields.js';
import { evaluateExpression } from './shared/logic-expression.js';
import { drive } from './shared/pipeline.js';
import { nextBeat } from './shared/cadence.js';

const INTERVAL_MS = 100;

const fields = {
  targetId: f.link('ActuatorDigitalInterface', { stored: true, drives: true }),
  enabled: f.bool({ stored: true, default: true }),
  result: f.enum(LogicResult, { readonly: true, logged: true }),
  expression: f.string({
    stored: true,
    maxLength: 64,
    description: 'a-z: digital comparisons, A-Z: analog ones; ! & | ^ ( )',
  }),
  digital: f.array(
    f.object({
      op: f.enum(DigitalCompareOp, { stored: true }),
      result: f.enum(LogicResult, { readonly: true }),
      id: f.link('DigitalInterface', { stored: true }),
      rhs: digitalState({ stored: true }),
    }),
    { stored: true, maxItems: 16 },
  ),
  analog: f.array(
    f.object({
      op: f.enum(AnalogCompareOp, { stored: true }),
      result: f.enum(LogicResult, { readonly: true }),
      id: f.link('ProcessValueInterface', { stored: true }),
      rhs: f.number({ stored: true, description: "in the compared block's units (degC for setpoints)" }),
    }),
    { stored: true, maxItems: 16 },
  ),
  errorPos: f.number({ readonly: true, integer: true, default: 0 }),
};

const legacyNames: LegacyTable = {
  drivenTargetId: legacy.ignore('older firmware: read-only link to the driven actuator'),
};

function compareDigital(c: { op: string; id: string | null; rhs: string }, ctx: UpdateContext): LogicResultName {
  const block = ctx.resolve(c.id, 'DigitalInterface');
  if (!block) return 'RESULT_BLOCK_NOT_FOUND';
  const data = block.data;
  const desiredOp = c.op === 'OP_DESIRED_IS' || c.op === 'OP_DESIRED_IS_NOT';
  const state = desiredOp ? (data.desiredState !== undefined ? data.desiredState : data.state) : data.state;
  if (state === null || state === undefined) return 'RESULT_FALSE';
  const equal = state === c.rhs;
  return (c.op === 'OP_VALUE_IS' || c.op === 'OP_DESIRED_IS') === equal ? 'RESULT_TRUE' : 'RESULT_FALSE';
}

function compareAnalog(c: { op: string; id: string | null; rhs: number | null }, ctx: UpdateContext): LogicResultName {
  const block = ctx.resolve(c.id, 'ProcessValueInterface');
  if (!block) return 'RESULT_BLOCK_NOT_FOUND';
  const data = block.data;
  const lhs = c.op === 'OP_SETTING_LE' || c.op === 'OP_SETTING_GE' ? data.setting : data.value;
  if (lhs === null || lhs === undefined || c.rhs === null) return 'RESULT_FALSE';
  const le = c.op === 'OP_VALUE_LE' || c.op === 'OP_SETTING_LE';
  return (le ? lhs <= c.rhs : lhs >= c.rhs) ? 'RESULT_TRUE' : 'RESULT_FALSE';
}

export const ActuatorLogic = defineBlock<typeof fields, undefined>({
  type: 'ActuatorLogic',
  role: 'controller',
  fields,
  legacy: legacyNames,
  implements: ['EnablerInterface'],
  description: 'Switches a digital actuator from a logic expression',
  update(block, ctx) {
    const d = block.data;
    for (const c of d.digital) c.result = compareDigital(c, ctx);
    for (const c of d.analog) c.result = compareAnalog(c, ctx);
    const target = ctx.resolve(d.targetId, 'ActuatorDigitalInterface');
    if (!d.enabled) {
      // Released by the runtime; not actively switched off (in CLAIMED mode it goes off itself).
      d.result = 'RESULT_FALSE';
      d.errorPos = 0;
      if (target) ctx.wake(target);
      return nextBeat(ctx.now, INTERVAL_MS);
    }
    const outcome = evaluateExpression(
      d.expression,
      d.digital.map((c) => c.result),
      d.analog.map((c) => c.result),
    );
    d.result = outcome.result;
    d.errorPos = outcome.errorPos;
    if (target) drive(ctx, target, block, outcome.result === 'RESULT_TRUE' ? 'STATE_ACTIVE' : 'STATE_INACTIVE');
    return nextBeat(ctx.now, INTERVAL_MS);
  },
});
