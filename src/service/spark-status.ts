// The Spark status description (brewblox-proto SparkStatusDescription) the Brewblox UI reads from
// GET system/status and from the `status` of every Spark.state message: the service and
// "controller" are the same process here, so while the service runs the controller is connected
// and synchronized; connection_kind tells real hardware from emulation. The offline description
// (clean stop and last will) is the same service part with no controller: DISCONNECTED.
import { deviceId } from '../blocks/sys-info.js';

export interface SparkStatusInput {
  serviceId: string;
  version: string;
  hardware: 'linux' | 'sim';
  enabled: () => boolean;
  address: () => string | null;
}

interface Firmware {
  firmware_version: string;
  proto_version: string;
  firmware_date: string;
  proto_date: string;
}

/** brewblox-proto `SparkStatusDescription`, as far as edgeblocks fills it. */
export interface SparkStatusDescription {
  enabled: boolean;
  service: { name: string; firmware: Firmware; device: { device_id: string } };
  controller: {
    system_version: string;
    platform: string;
    reset_reason: string;
    firmware: Firmware;
    device: { device_id: string };
  } | null;
  address: string | null;
  connection_kind: 'SIM' | 'TCP' | null;
  connection_status: 'SYNCHRONIZED' | 'DISCONNECTED';
  firmware_error: null;
  identity_error: null;
}

export function sparkStatus(i: SparkStatusInput): SparkStatusDescription {
  const firmware = { firmware_version: i.version, proto_version: i.version, firmware_date: '', proto_date: '' };
  const device = { device_id: deviceId() };
  return {
    enabled: i.enabled(),
    service: { name: i.serviceId, firmware, device },
    controller: {
      system_version: process.version,
      platform: `edgeblocks-${process.platform}-${process.arch}`,
      reset_reason: '',
      firmware,
      device,
    },
    address: i.address(),
    // SIM: emulated buses and plant; TCP: the real hardware of this host (the nearest Brewblox kind).
    connection_kind: i.hardware === 'sim' ? 'SIM' : 'TCP',
    connection_status: 'SYNCHRONIZED',
    firmware_error: null,
    identity_error: null,
  };
}

/** The description once the service is gone: no controller, no connection. */
export function offlineSparkStatus(i: SparkStatusInput): SparkStatusDescription {
  return {
    ...sparkStatus(i),
    controller: null,
    address: null,
    connection_kind: null,
    connection_status: 'DISCONNECTED',
  };
}
