// The Brewblox UI's reading of a Spark.state message, after the UI's own code paths (the list of
// UI files it follows is in ui-state-reader.test.ts). Shared by the tests that need to show a
// state message is one the UI takes as a Spark service (test/fleet).
export interface UiView {
  /** The service list's entry (asServiceStatus). */
  desc: string;
  color: string;
  /** What the service page shows: blocks, or the troubleshooter at a step. */
  page: 'blocks' | 'troubleshooter';
  step: string;
  serviceName: string | null;
  deviceId: string | null;
  enabled: boolean | null;
  blocks: number;
}

export function statusDesc(status: any): [string, string] {
  if (!status) return ['unreachable', 'red'];
  const cs = status.connection_status;
  if (cs === 'DISCONNECTED') return ['Waiting for connection', 'red'];
  if (cs === 'CONNECTED') return ['Waiting for handshake', 'yellow'];
  if (cs === 'ACKNOWLEDGED') {
    if (status.firmware_error === 'INCOMPATIBLE') return ['Incompatible firmware', 'orange'];
    if (status.identity_error === 'INCOMPATIBLE') return ['Invalid device ID', 'orange'];
    return ['Waiting for synchronization', 'yellow'];
  }
  if (cs === 'UPDATING') return ['Updating', 'orange'];
  if (cs === 'SYNCHRONIZED') {
    if (status.firmware_error === 'MISMATCHED') return ['Firmware update available', 'lime'];
    if (status.identity_error === 'WILDCARD_ID') return ['Service --device-id not set', 'lime'];
    return ['Synchronized', 'green'];
  }
  return ['Unknown', 'red'];
}

/** One Spark.state message as the UI's spark store and service page take it. */
export function uiRead(serviceId: string, evt: any): UiView | null {
  if (evt.type !== 'Spark.state' || evt.key !== serviceId) return null;
  const status = evt.data ? evt.data.status : null;
  const blocks = evt.data ? evt.data.blocks.length : 0;
  const [desc, color] = statusDesc(status);
  const synchronized = status?.connection_status === 'SYNCHRONIZED';
  return {
    desc,
    color,
    page: synchronized ? 'blocks' : 'troubleshooter',
    step: status ? status.connection_status : 'UNREACHABLE',
    serviceName: status ? status.service.name : null,
    deviceId: status ? status.service.device.device_id : null,
    enabled: status ? status.enabled : null,
    blocks,
  };
}
