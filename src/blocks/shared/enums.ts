// Enumerations shared by several block types. Names and numbers follow the reference system.
export const DigitalState = { STATE_INACTIVE: 0, STATE_ACTIVE: 1, STATE_UNKNOWN: 2, STATE_REVERSE: 3 } as const;
export type DigitalStateName = keyof typeof DigitalState;

export const SettingMode = { STORED: 0, CLAIMED: 1 } as const;

export const FilterChoice = {
  FILTER_NONE: 0,
  FILTER_15s: 1,
  FILTER_45s: 2,
  FILTER_90s: 3,
  FILTER_3m: 4,
  FILTER_10m: 5,
  FILTER_30m: 6,
} as const;
export type FilterChoiceName = keyof typeof FilterChoice;

/** Channel capability bits of IoArray channels. */
export const ChannelCapability = {
  DIGITAL_OUTPUT: 1,
  PWM_80HZ: 2,
  PWM_100HZ: 4,
  PWM_200HZ: 8,
  PWM_2000HZ: 16,
  BIDIRECTIONAL: 32,
  DIGITAL_INPUT: 64,
} as const;
