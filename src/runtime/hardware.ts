// What block behaviour may ask of the hardware layer. The app fills it from the drivers
// (linux or sim); in tests and without hardware it is empty.
export interface Hardware {
  /** Named services registered by the hardware layer (one-wire pollers, GPIO lines, ...). */
  readonly services: Record<string, unknown>;
}

export const noHardware: Hardware = { services: {} };
