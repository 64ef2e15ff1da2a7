// What to do about a finding, in the words of docs/troubleshooting.md: the doctor quotes the
// paragraph or bullet that holds a phrase instead of keeping a second copy of the advice. The
// docs ship with the service (the installer and the release artifact copy docs/).
import { readFileSync } from 'node:fs';

/** Each piece of advice: a phrase that finds its paragraph or bullet, and the section it is in. */
export const ADVICE = {
  interfaces: { phrase: '**1-Wire or I2C is not enabled.**', anchor: 'hardware' },
  noW1Master: { phrase: "If there's no `w1_bus_master1`", anchor: 'hardware' },
  noise: { phrase: 'Directories like `00-800000000000`', anchor: 'hardware' },
  ds2482: { phrase: 'With a DS2482: `i2cdetect -y 1`', anchor: 'hardware' },
  vanishing: { phrase: 'Sensors that vanish after hours', anchor: 'hardware' },
  powerOn: { phrase: '**Readings of exactly 85.0 degC.**', anchor: 'hardware' },
  crc: { phrase: '**CRC errors.**', anchor: 'hardware' },
  parasite: { phrase: '**Parasite power.**', anchor: 'hardware' },
  groups: { phrase: '`id edgeblocks` must list', anchor: 'hardware' },
  devicePermissions: { phrase: '`ls -l /dev/i2c-1 /dev/gpiochip0', anchor: 'hardware' },
  gpioNumbers: { phrase: 'GPIO `export` failing with `EINVAL`', anchor: 'hardware' },
  w1Writes: { phrase: 'Writing w1 sysfs files', anchor: 'hardware' },
  clockBehind: { phrase: '**"The controller\'s clock is behind the last time it saw"**', anchor: 'the-dashboard' },
  diskFull: { phrase: '`disk full: the data directory has no space left', anchor: 'disk-full-507' },
  dataDirInUse: { phrase: 'One service per data dir.', anchor: 'the-service-does-not-start' },
  serviceSilent: { phrase: '**`the service does not answer on', anchor: 'the-doctor-and-a-running-service' },
  tokenRefused: {
    phrase: '**`... refuses the token in EDGEBLOCKS_TOKEN`.**',
    anchor: 'the-doctor-and-a-running-service',
  },
} as const;

export type AdviceKey = keyof typeof ADVICE;

const CANDIDATES = [
  new URL('../../../docs/troubleshooting.md', import.meta.url), // dist/src/doctor -> the package
  new URL('../../docs/troubleshooting.md', import.meta.url), // src/doctor (tests run the sources)
];

let blocks: string[] | null = null;

function load(): string[] {
  if (blocks) return blocks;
  let text = '';
  for (const url of CANDIDATES) {
    try {
      text = readFileSync(url, 'utf8');
      break;
    } catch {
      // next place
    }
  }
  blocks = markdownBlocks(text).map(plain);
  return blocks;
}

/** A markdown document's paragraphs and list items, each as one line. */
export function markdownBlocks(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) out.push(current.join(' '));
    current = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) flush();
    else if (/^\s*- /.test(line)) {
      flush();
      current.push(line.replace(/^\s*- /, ''));
    } else current.push(line.trim());
  }
  flush();
  return out;
}

/** Markdown to plain text: links to their words, emphasis and code marks kept readable. */
export function plain(block: string): string {
  return block
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\*\*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The advice for `key`, as the docs word it, and where it is; null when the docs are not installed. */
export function advice(key: AdviceKey): { advice: string; see: string } {
  const { phrase, anchor } = ADVICE[key];
  const see = `docs/troubleshooting.md#${anchor}`;
  const block = load().find((b) => b.includes(plain(phrase)));
  return { advice: block ?? 'see the troubleshooting page', see };
}
