// The Spark status description (brewblox-proto SparkStatusDescription) the Brewblox UI reads from
// GET system/status: the service and "controller" are the same process here, so the controller
// is always connected and synchronized; connection_kind tells real hardware from emulation.
import { deviceId } from '../blocks/sys-info.js';

export interface SparkStatusInput {
  serviceId: string;
  version: string;
  hardware: 'linux' | 'sim';
  enabled: () => boolean;
  address: () => string | null;
}

export function sparkStatus(i: SparkStatusInput): Record<string, unknown> {
  const firmware = { firmware_version: i.version, proto_version: i.version, firmware_date: '', proto_date: '' };
  const device = { device_id: deviceId() };
  return {
    enabled: i.enabled(),
    service: { name: i.serviceId, firmware, device },
    controller: { system_version: process.version, platform: `edgeblocks-${process.platform}-${process.arch}`, reset_reason: '', firmware, device },
    address: i.address(),
    // SIM: emulated buses and plant; TCP: the real hardware of this host (the nearest Brewblox kind).
    connection_kind: i.hardware === 'sim' ? 'SIM' : 'TCP',
    connection_status: 'SYNCHRONIZED',
    firmware_error: null,
    identity_error: null,
  };
}
