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

/** Other spellings of the filter choices: older firmware (FILT_*) and newer (SETTLE_IN_*_SAMPLES, same numbers). */
export const FilterChoiceAliases: Readonly<Record<string, FilterChoiceName>> = {
  FILT_NONE: 'FILTER_NONE',
  FILT_15s: 'FILTER_15s',
  FILT_45s: 'FILTER_45s',
  FILT_90s: 'FILTER_90s',
  FILT_3m: 'FILTER_3m',
  FILT_10m: 'FILTER_10m',
  FILT_30m: 'FILTER_30m',
  SETTLE_IN_13_SAMPLES: 'FILTER_15s',
  SETTLE_IN_47_SAMPLES: 'FILTER_45s',
  SETTLE_IN_112_SAMPLES: 'FILTER_90s',
  SETTLE_IN_241_SAMPLES: 'FILTER_3m',
  SETTLE_IN_649_SAMPLES: 'FILTER_10m',
  SETTLE_IN_1876_SAMPLES: 'FILTER_30m',
};

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

export const SensorCombiFunc = {
  SENSOR_COMBI_FUNC_AVG: 0,
  SENSOR_COMBI_FUNC_MIN: 1,
  SENSOR_COMBI_FUNC_MAX: 2,
} as const;

export const ReferenceKind = { REF_SETTING: 0, REF_VALUE: 1 } as const;

export const ToggleBehavior = { DIRECT: 0, ALTERNATING: 1 } as const;

export const DigitalCompareOp = {
  OP_VALUE_IS: 0,
  OP_VALUE_IS_NOT: 1,
  OP_DESIRED_IS: 10,
  OP_DESIRED_IS_NOT: 11,
} as const;

export const AnalogCompareOp = { OP_VALUE_LE: 0, OP_VALUE_GE: 1, OP_SETTING_LE: 10, OP_SETTING_GE: 11 } as const;

/** Result of an ActuatorLogic expression or comparison; every value >= 3 is an error. */
export const LogicResult = {
  RESULT_FALSE: 0,
  RESULT_TRUE: 1,
  RESULT_EMPTY: 2,
  RESULT_EMPTY_SUBSTRING: 3,
  RESULT_BLOCK_NOT_FOUND: 4,
  RESULT_INVALID_DIGITAL_OP: 5,
  RESULT_INVALID_ANALOG_OP: 6,
  RESULT_UNDEFINED_ANALOG_COMPARE: 7,
  RESULT_UNDEFINED_DIGITAL_COMPARE: 8,
  RESULT_UNEXPECTED_CLOSE_BRACKET: 9,
  RESULT_MISSING_CLOSE_BRACKET: 10,
  RESULT_UNEXPECTED_OPEN_BRACKET: 11,
  RESULT_UNEXPECTED_CHARACTER: 12,
  RESULT_UNEXPECTED_COMPARISON: 13,
  RESULT_UNEXPECTED_OPERATOR: 14,
} as const;
export type LogicResultName = keyof typeof LogicResult;
