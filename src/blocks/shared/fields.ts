// Field groups that several block types share.
import { f, type FieldFlags } from '../../codec/fields.js';
import { DigitalState, SettingMode } from './enums.js';

export const claimableFields = {
  claimedBy: f.link('Any', { readonly: true, description: 'the block that drives this one, if any' }),
  settingMode: f.enum(SettingMode, { stored: true, description: 'CLAIMED: stay inactive when no claimer drives this block' }),
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
