// The interfaces section: the 1-Wire and I2C overlays in config.txt and whether the kernel took
// them, the device nodes there are, the service user's groups and its access to each node, and
// the GPIO chip of the header (found by label) with its line numbering.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findGpioChip, GpioChipError } from '../../drivers/gpio/chip-base.js';
import type { GpioLineConfig } from '../../drivers/gpio/types.js';
import { listI2cAdapters } from '../../drivers/i2c/adapters.js';
import { advice } from './advice.js';
import { section, type Section } from './report.js';
import { shown, type Roots } from './roots.js';

export interface BootConfig {
  path: string | null;
  /**
   * `dtoverlay=w1-gpio` (or `w1-gpio-pullup`, the same master with a GPIO driving an external
   * pull-up) active, with its data pin (4 unless gpiopin= says otherwise).
   */
  w1: { overlay: string; pin: number } | null;
  i2c: boolean;
}

/** The active lines of config.txt (Bookworm's /boot/firmware, or the older /boot). */
export function readBootConfig(roots: Roots): BootConfig {
  for (const path of [join(roots.boot, 'firmware/config.txt'), join(roots.boot, 'config.txt')]) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    const lines = text.split('\n').map((l) => l.replace(/#.*/, '').trim());
    const w1 = lines.map((l) => /^dtoverlay=(w1-gpio(?:-pullup)?)(,|$)/.exec(l)).find((m) => m !== null);
    const pin = w1?.input.match(/gpiopin=(\d+)/)?.[1];
    return {
      path,
      w1: w1 ? { overlay: w1[1]!, pin: pin ? Number(pin) : 4 } : null,
      i2c: lines.some((l) => /^dtparam=(i2c_arm|i2c)=on$/.test(l) || /^dtparam=.*\bi2c_arm=on\b/.test(l)),
    };
  }
  return { path: null, w1: null, i2c: false };
}

/** User= and SupplementaryGroups= of the installed unit, or of the one shipped with the package. */
export function serviceAccount(roots: Roots): { user: string; groups: string[]; unit: string } {
  const candidates = [
    join(roots.etc, 'systemd/system/edgeblocks.service'),
    new URL('../../../systemd/edgeblocks.service', import.meta.url).pathname,
    new URL('../../systemd/edgeblocks.service', import.meta.url).pathname,
  ];
  for (const unit of candidates) {
    let text: string;
    try {
      text = readFileSync(unit, 'utf8');
    } catch {
      continue;
    }
    return {
      user: text.match(/^User=(\S+)/m)?.[1] ?? 'edgeblocks',
      groups:
        text
          .match(/^SupplementaryGroups=(.+)$/m)?.[1]
          ?.trim()
          .split(/\s+/) ?? [],
      unit,
    };
  }
  return { user: 'edgeblocks', groups: [], unit: 'none' };
}

interface Account {
  uid: number;
  gid: number;
  /** Groups by name -> gid, and who is in them (from /etc/group). */
  groups: Map<string, { gid: number; members: string[] }>;
}

function readAccounts(roots: Roots, user: string): Account | null {
  let passwd = '';
  let group = '';
  try {
    passwd = readFileSync(join(roots.etc, 'passwd'), 'utf8');
    group = readFileSync(join(roots.etc, 'group'), 'utf8');
  } catch {
    return null;
  }
  const entry = passwd.split('\n').find((l) => l.startsWith(`${user}:`));
  if (!entry) return null;
  const [, , uid, gid] = entry.split(':');
  const groups = new Map<string, { gid: number; members: string[] }>();
  for (const line of group.split('\n')) {
    const [name, , g, members] = line.split(':');
    if (name && g !== undefined)
      groups.set(name, { gid: Number(g), members: (members ?? '').split(',').filter(Boolean) });
  }
  return { uid: Number(uid), gid: Number(gid), groups };
}

function nameOfGid(account: Account | null, gid: number): string {
  for (const [name, g] of account?.groups ?? []) if (g.gid === gid) return name;
  return String(gid);
}

/** Whether uid/gids may read and write a node with this stat. */
function canReadWrite(st: { uid: number; gid: number; mode: number }, uid: number, gids: Set<number>): boolean {
  if (uid === 0) return true;
  const bits = st.uid === uid ? (st.mode >> 6) & 7 : gids.has(st.gid) ? (st.mode >> 3) & 7 : st.mode & 7;
  return (bits & 6) === 6;
}

export interface InterfaceFacts {
  boot: BootConfig;
  w1Masters: string[];
  i2cBuses: number[];
}

export async function interfacesSection(
  roots: Roots,
  w1Root: string,
  gpio: GpioLineConfig[],
  gpioChipLabel: string | undefined,
  serialPorts: string[],
): Promise<{ section: Section; facts: InterfaceFacts }> {
  const s = section('Interfaces');
  const boot = readBootConfig(roots);
  s.facts.push([
    'config.txt',
    boot.path ? shown(roots, boot.path) : 'none (neither /boot/firmware/config.txt nor /boot/config.txt)',
  ]);
  let w1Masters: string[] = [];
  try {
    w1Masters = readdirSync(w1Root).filter((n) => n.startsWith('w1_bus_master'));
  } catch {
    // no w1 subsystem loaded
  }
  const adapters = await listI2cAdapters({ dev: roots.dev, sys: roots.sys });
  s.facts.push([
    '1-Wire',
    `${boot.w1 ? `dtoverlay=${boot.w1.overlay} (data on GPIO${boot.w1.pin})` : 'no w1-gpio overlay'}; kernel masters: ${w1Masters.join(', ') || 'none'}`,
  ]);
  s.facts.push([
    'I2C',
    `${boot.i2c ? 'dtparam=i2c_arm=on' : 'i2c_arm not enabled'}; buses: ${adapters.map((a) => `i2c-${a.bus}${a.role === 'display' ? ' (HDMI, not probed)' : a.role === 'header' ? ' (header)' : ''}`).join(', ') || 'none'}`,
  ]);
  if (!boot.w1)
    s.findings.push({
      verdict: 'warn',
      text: `the 1-Wire overlay (dtoverlay=w1-gpio) is not enabled in ${boot.path ? shown(roots, boot.path) : 'config.txt'}: DS18B20s on GPIO4 are not seen (a DS2482 needs I2C instead)`,
      ...advice('interfaces'),
    });
  else if (w1Masters.length === 0)
    s.findings.push({
      verdict: 'fail',
      text: 'dtoverlay=w1-gpio is in config.txt but the kernel has no w1_bus_master: reboot, or check dmesg',
      ...advice('noW1Master'),
    });
  else s.findings.push({ verdict: 'ok', text: `1-Wire: ${w1Masters.length} kernel master(s)` });
  const header = adapters.find((a) => a.role === 'header');
  if (!boot.i2c)
    s.findings.push({
      verdict: 'warn',
      text: `I2C on pins 3 and 5 (dtparam=i2c_arm=on) is not enabled in ${boot.path ? shown(roots, boot.path) : 'config.txt'}: no DS2482 or I2C sensor can be used`,
      ...advice('interfaces'),
    });
  else if (!header)
    s.findings.push({
      verdict: 'fail',
      text: 'dtparam=i2c_arm=on is in config.txt but there is no /dev/i2c-1: reboot (and load i2c-dev)',
      ...advice('interfaces'),
    });
  else s.findings.push({ verdict: 'ok', text: `I2C: /dev/i2c-${header.bus} is the header's bus` });

  // The service user: its groups, and whether it can use each device node.
  const account = serviceAccount(roots);
  const accounts = readAccounts(roots, account.user);
  const inEtcGroup = [...(accounts?.groups ?? [])]
    .filter(([, g]) => g.members.includes(account.user) || g.gid === accounts?.gid)
    .map(([name]) => name);
  s.facts.push([
    'service user',
    accounts
      ? `${account.user} (uid ${accounts.uid}), groups: ${inEtcGroup.join(' ') || 'none'}; the unit adds: ${account.groups.join(' ') || 'none'}`
      : `${account.user}: no such user (the service is not installed here)`,
  ]);
  if (accounts) {
    const missing = account.groups.filter((g) => !inEtcGroup.includes(g));
    if (missing.length)
      s.findings.push({
        verdict: 'warn',
        text: `${account.user} is not in the group(s) ${missing.join(', ')} (id ${account.user} must list ${account.groups.join(', ')})`,
        ...advice('groups'),
      });
    const gids = new Set<number>([accounts.gid]);
    for (const name of [...inEtcGroup, ...account.groups]) {
      const g = accounts.groups.get(name);
      if (g) gids.add(g.gid);
    }
    const nodes = [
      ...readdirSafe(roots.dev)
        .filter((n) => /^(i2c-\d+|gpiochip\d+|gpiomem\d*)$/.test(n))
        .map((n) => join(roots.dev, n)),
      ...serialPorts,
    ];
    const denied: string[] = [];
    const seen: string[] = [];
    for (const node of nodes.sort()) {
      let st;
      try {
        st = statSync(node);
      } catch {
        continue;
      }
      const perms = `${(st.mode & 0o777).toString(8)} ${st.uid === accounts.uid ? account.user : st.uid === 0 ? 'root' : st.uid}:${nameOfGid(accounts, st.gid)}`;
      seen.push(`${node.slice(roots.dev.length + 1) || node} ${perms}`);
      if (!canReadWrite(st, accounts.uid, gids)) denied.push(`${shown(roots, node)} (${perms})`);
    }
    s.facts.push(['devices', seen.join(', ') || 'none']);
    if (denied.length)
      s.findings.push({
        verdict: 'fail',
        text: `${account.user} cannot read and write ${denied.join(', ')}: permission denied`,
        ...advice('devicePermissions'),
      });
    else if (seen.length) s.findings.push({ verdict: 'ok', text: `${account.user} can use every GPIO and I2C device` });
  }

  // The header's GPIO chip, by label, and the numbers its lines get.
  try {
    const chip = await findGpioChip({ root: join(roots.sys, 'class/gpio'), label: gpioChipLabel });
    s.facts.push([
      'GPIO chip',
      `${chip.name} "${chip.label}", base ${chip.base}, ${chip.ngpio} lines: GPIO17 is sysfs ${chip.base + 17 < chip.base + chip.ngpio ? chip.base + 17 : 'n/a'}`,
    ]);
    const outside = gpio.filter((l) => l.line >= chip.ngpio);
    if (outside.length)
      s.findings.push({
        verdict: 'fail',
        text: `configured line(s) ${outside.map((l) => `${l.name} (${l.line})`).join(', ')} are outside the chip (0..${chip.ngpio - 1})`,
        ...advice('gpioNumbers'),
      });
  } catch (e) {
    if (!(e instanceof GpioChipError)) throw e;
    s.facts.push(['GPIO chip', 'none found']);
    s.findings.push({
      verdict: gpio.length ? 'fail' : 'info',
      text: `${e.message}${gpio.length ? '' : ' (no GPIO lines are configured, so none is needed)'}`,
      ...(gpio.length ? advice('gpioNumbers') : {}),
    });
  }
  return {
    section: s,
    facts: { boot, w1Masters, i2cBuses: adapters.filter((a) => a.role !== 'display').map((a) => a.bus) },
  };
}

function readdirSafe(dir: string): string[] {
  try {
    return existsSync(dir) ? readdirSync(dir) : [];
  } catch {
    return [];
  }
}
