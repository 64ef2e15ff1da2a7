// With the service running, the doctor does not touch the buses (two masters on one bus garble
// each other's reads): it asks the service through its API what it sees on them instead.
import type { Config } from '../config.js';
import { advice } from './advice.js';
import { section, type Section } from './report.js';
import type { HistoryRate } from './system.js';

interface BusStatus {
  name: string;
  kind: string;
  addresses: string[];
  crcErrors: number;
  crcRetries: number;
  presenceErrors: number;
  shortErrors: number;
  readErrors: number;
  lastError: string | null;
}

/** One entry of the service's `alerts.list` (src/alerts/index.ts). */
interface ActiveAlertStatus {
  kind: string;
  title: string;
  text: string;
  since: string;
  acknowledged: boolean;
}

interface ServiceStatus {
  uptime?: number;
  alerts?: { list?: ActiveAlertStatus[] };
  hardware?: { onewire?: { buses?: BusStatus[]; missing?: unknown[]; garbled?: unknown[] } };
  history?: { chunkBytesWritten?: number };
  gateway?: { certificateWarning?: string | null };
}

/** An API token the doctor sends to a service with auth on (read from the environment, not an argument: ps shows arguments). */
export const TOKEN_ENV = 'EDGEBLOCKS_TOKEN';

export async function serviceSection(
  config: Config,
  pid: number | null,
  token = process.env[TOKEN_ENV] || undefined,
): Promise<{ section: Section; historyRate: HistoryRate | null }> {
  const s = section('Service');
  const who = `the service is running${pid ? ` (pid ${pid})` : ''}`;
  s.findings.push({
    verdict: 'info',
    text: `${who} and has the buses and outputs, so they are not tested here; below is what the service sees. To test them: sudo systemctl stop edgeblocks, run the doctor, sudo systemctl start edgeblocks`,
    see: advice('dataDirInUse').see,
  });
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}/${config.serviceId}/system/status`;
  let status: ServiceStatus;
  try {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const res = await fetch(url, { signal: AbortSignal.timeout(5000), headers });
    if (res.status === 401) {
      s.findings.push(
        token
          ? {
              verdict: 'warn',
              text: `${url} refuses the token in ${TOKEN_ENV}: the service's view is not shown`,
              ...advice('tokenRefused'),
            }
          : {
              verdict: 'info',
              text: `${url} needs a login (auth is on): the service's view is not shown. To see it, give the doctor an API token in ${TOKEN_ENV}, kept out of ps by sudo --preserve-env: read -rs ${TOKEN_ENV}; export ${TOKEN_ENV}; sudo --preserve-env=${TOKEN_ENV} edgeblocks doctor. Make one for a user of its own, a viewer: edgeblocks user add doctor --role viewer, then edgeblocks user token doctor (a token replaces the user's previous one, so not the one your scripts use)`,
            },
      );
      return { section: s, historyRate: null };
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    status = (await res.json()) as ServiceStatus;
  } catch (e) {
    s.findings.push({
      verdict: 'warn',
      text: `the service does not answer on ${url}: ${(e as Error).message}`,
      ...advice('serviceSilent'),
    });
    return { section: s, historyRate: null };
  }
  s.facts.push(['api', url]);
  if (status.uptime !== undefined) s.facts.push(['uptime', `${Math.round(status.uptime / 60)} min`]);
  s.parts = [];
  for (const bus of status.hardware?.onewire?.buses ?? []) {
    const b = section(`Bus ${bus.name} (${bus.kind}), as the service sees it`);
    b.facts.push(['devices', bus.addresses.join(', ') || 'none']);
    b.facts.push([
      'errors',
      `${bus.crcErrors} CRC (${bus.crcRetries} retried), ${bus.presenceErrors} no answer, ${bus.shortErrors} short, ${bus.readErrors} read`,
    ]);
    if (bus.lastError) b.findings.push({ verdict: 'warn', text: `last error: ${bus.lastError}` });
    s.parts.push(b);
  }
  // Those on their bus whose replies arrive damaged (garbled, among the missing) apart: the
  // wiring is to check for them, not whether they are plugged in.
  const garbled = new Set(status.hardware?.onewire?.garbled ?? []);
  const missing = (status.hardware?.onewire?.missing ?? []).filter((a) => !garbled.has(a));
  if (missing.length)
    s.findings.push({
      verdict: 'warn',
      text: `${missing.length} device(s) the blocks use are missing`,
      ...advice('vanishing'),
    });
  if (garbled.size)
    s.findings.push({
      verdict: 'warn',
      text: `${garbled.size} device(s) the blocks use answer but their replies fail their checks (CRC): a noisy bus, a long cable or a failing chip`,
      ...advice('crc'),
    });
  // What the service finds wrong itself (history, broker, storage, control, sensors, devices on
  // any bus, I2C chips too): its active alerts, each naming what it is about.
  for (const a of status.alerts?.list ?? [])
    s.findings.push({
      verdict: 'warn',
      text: `active alert since ${a.since}${a.acknowledged ? ' (acknowledged)' : ''}: ${a.title}: ${a.text}`,
    });
  // The certificate the running service serves: read at its start, so a renewed file needs a restart.
  const served = status.gateway?.certificateWarning;
  if (served)
    s.findings.push({
      verdict: 'warn',
      text: `the service serves a certificate it read at its start: ${served}`,
    });
  const written = status.history?.chunkBytesWritten;
  const uptime = status.uptime;
  const historyRate =
    written !== undefined && uptime !== undefined && uptime >= 600
      ? {
          bytesPerDay: (written / uptime) * 86400,
          how: `${(written / 1048576).toFixed(1)} MB written in ${Math.round(uptime / 60)} min`,
        }
      : null;
  return { section: s, historyRate };
}
