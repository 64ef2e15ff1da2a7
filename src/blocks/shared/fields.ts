// Field groups that several block types share.
import { f, type Field, type FieldFlags } from '../../codec/fields.js';
import { DigitalState, SettingMode } from './enums.js';

export const claimableFields = {
  claimedBy: f.link('Any', { readonly: true, description: 'the block that drives this one, if any' }),
  settingMode: f.enum(SettingMode, {
    stored: true,
    description: 'CLAIMED: stay inactive when no claimer drives this block',
  }),
};

export const ioChannel = f.object({
  id: f.number({ readonly: true, integer: true }),
  capabilities: f.number({ readonly: true, integer: true }),
  claimedBy: f.link('IoClaimerInterface', { readonly: true }),
});

export const ioChannelsField = f.array(ioChannel, { readonly: true });

export function makeChannels(count: number, capabilities: number) {
  return Array.from({ length: count }, (_, i) => ({ id: i + 1, capabilities, claimedBy: null as string | null }));
}

export const digitalState = (o: FieldFlags = {}) => f.enum(DigitalState, o);
export const digitalStateOrNull = (o: FieldFlags = {}) => f.enumOrNull(DigitalState, o);

export const valueConstraint = f.optionalObject(
  {
    value: f.number({ stored: true }),
    enabled: f.bool({ stored: true }),
    limiting: f.bool({ readonly: true }),
  },
  { stored: true },
);

export const analogConstraintsField = f.object(
  {
    min: valueConstraint,
    max: valueConstraint,
    balanced: f.optionalObject(
      {
        balancerId: f.link('BalancerInterface', { stored: true }),
        granted: f.number({ readonly: true }),
        enabled: f.bool({ stored: true }),
        limiting: f.bool({ readonly: true }),
      },
      { stored: true },
    ),
  },
  { stored: true },
);

const durationConstraint = (blocks: string) =>
  f.optionalObject(
    {
      duration: f.duration({ stored: true }),
      enabled: f.bool({ stored: true }),
      limiting: f.bool({ readonly: true, description: `true while this constraint ${blocks}` }),
      remaining: f.duration({ readonly: true, default: 0, description: 'time until the constraint allows the change' }),
    },
    { stored: true },
  );

/** Digital constraints, always evaluated in this order (reference §4.5, §6.5). */
export const digitalConstraintsField = f.object(
  {
    minOff: durationConstraint('keeps the output off'),
    minOn: durationConstraint('keeps the output on'),
    delayedOn: durationConstraint('delays switching on'),
    delayedOff: durationConstraint('delays switching off'),
    mutexed: f.optionalObject(
      {
        mutexId: f.link('MutexInterface', { stored: true }),
        extraHoldTime: f.duration({ stored: true, description: 'how long the lock is kept after switching off' }),
        hasLock: f.bool({ readonly: true }),
        enabled: f.bool({ stored: true }),
        limiting: f.bool({ readonly: true, description: 'true while another actuator holds the mutex' }),
        remaining: f.duration({ readonly: true, default: 0 }),
      },
      { stored: true },
    ),
  },
  { stored: true },
);

/**
 * The four values of the stored -> desired -> setting -> value pipeline (reference §4.1), in
 * the unit `make` gives them: plain numbers (percent), temperatures or temperature differences.
 */
export function settingPipelineFields(
  make: (o: FieldFlags) => Field<number | null>,
  notes: { desiredSetting?: string; setting?: string; value?: string } = {},
) {
  return {
    storedSetting: make({ logged: true, stored: true, description: 'the setting written by the user' }),
    desiredSetting: make({
      readonly: true,
      logged: true,
      description: notes.desiredSetting ?? "the claimer's request, or the stored setting when unclaimed",
    }),
    setting: make({
      readonly: true,
      logged: true,
      description: notes.setting ?? 'the desired setting after clipping and constraints',
    }),
    value: make({ readonly: true, logged: true, description: notes.value }),
  };
}
