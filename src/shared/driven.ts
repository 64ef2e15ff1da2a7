// A block another block drives (a Setpoint Profile a setpoint, a PID a PWM, a PWM an actuator:
// its claimedBy link) uses its driver's setting, and a setting or a switch by hand would not be
// used while it does. One rule for every control by hand: the dashboard's cards offer none then,
// and Home Assistant's commands are refused (the REST API and MQTT block writes still store the
// value for later, as Brewblox does). Portable: the dashboard imports it too.

/** The id of the block that drives this one (its claimedBy link), or null when none does. */
export function driverOf(data: Record<string, unknown>): string | null {
  const claimed = data.claimedBy;
  if (typeof claimed !== 'object' || claimed === null) return null;
  const id = (claimed as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : null;
}
