#!/usr/bin/env node
// The EDGEBLOCKS_* variables a systemd service will start with, for the installer's config check
// (scripts/install-pi.sh, check_config): Environment= and EnvironmentFile= (whose values win, as in
// systemd) of the unit and of its drop-ins (`systemctl edit edgeblocks`), read from the files rather
// than asked of systemctl: the installer reloads systemd before the restart, so the files are what
// the service gets, and they are there under DESTDIR and without a running systemd.
// Prints NUL-separated name, value and the file that sets it, for each variable.
//   node scripts/unit-environment.mjs ROOT SERVICE UNIT_FILE UNIT_NAME
import fs from 'node:fs';
const [root, service, unit, unitName] = process.argv.slice(2);
const read = (p) => {
  try {
    return fs.readFileSync(root + p, 'utf8');
  } catch {
    return null;
  }
};
// Drop-ins: the unit's own directory before the service.d of every service, /etc before /run
// before the vendor ones; one of a name counts, and all apply in the order of their names.
const dirs = [
  '/etc/systemd/system.control',
  '/run/systemd/system.control',
  '/run/systemd/transient',
  '/etc/systemd/system',
  '/run/systemd/system',
  '/usr/local/lib/systemd/system',
  '/usr/lib/systemd/system',
  '/lib/systemd/system',
];
const dropIns = new Map();
for (const sub of [`${service}.d`, 'service.d'])
  for (const dir of dirs) {
    let names = [];
    try {
      names = fs.readdirSync(`${root}${dir}/${sub}`);
    } catch {}
    for (const n of names) if (n.endsWith('.conf') && !dropIns.has(n)) dropIns.set(n, `${dir}/${sub}/${n}`);
  }
// A word of Environment=: quotes group, a backslash escapes, %% is %.
function words(text) {
  const out = [];
  let word = null,
    quote = null;
  const esc = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", s: ' ' };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + (esc[text[i + 1]] ?? text[i + 1]);
      i++;
    } else if (quote) {
      if (c === quote) quote = null;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word = word ?? '';
    } else if (/\s/.test(c)) {
      if (word !== null) out.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) out.push(word);
  return out.map((w) => w.replace(/%%/g, '%'));
}
let assigned = [],
  files = [];
for (const [path, text] of [
  [unitName, fs.readFileSync(unit, 'utf8')],
  ...[...dropIns.keys()].sort().map((n) => [dropIns.get(n), read(dropIns.get(n)) ?? '']),
]) {
  let section = '';
  for (const line of text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const l = line.trim();
    if (!l || l[0] === '#' || l[0] === ';') continue;
    if (l[0] === '[') {
      section = l;
      continue;
    }
    const eq = l.indexOf('=');
    if (section !== '[Service]' || eq < 0) continue;
    const key = l.slice(0, eq).trim(),
      value = l.slice(eq + 1).trim();
    if (key === 'Environment') {
      if (!value) assigned = [];
      for (const w of words(value)) {
        const at = w.indexOf('=');
        if (at > 0) assigned.push([w.slice(0, at), w.slice(at + 1), path]);
      }
    } else if (key === 'EnvironmentFile') {
      if (!value) files = [];
      else files.push([value.replace(/^-/, '').replace(/%%/g, '%'), path]);
    }
  }
}
const env = new Map();
for (const [name, value, from] of assigned) env.set(name, [value, from]);
// An environment file: NAME=VALUE lines, # and ; comments, a value in quotes may span lines.
for (const [file] of files) {
  const text = read(file);
  if (text === null) continue;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    if (!l || l[0] === '#' || l[0] === ';') continue;
    const eq = l.indexOf('=');
    if (eq < 1) continue;
    const name = l.slice(0, eq).trim();
    let value = l.slice(eq + 1).trim();
    const q = value[0];
    if (q === '"' || q === "'") {
      while (!(value.length > 1 && value.endsWith(q) && !value.endsWith('\\' + q)) && i + 1 < lines.length)
        value += '\n' + lines[++i];
      value = value.slice(1, value.endsWith(q) ? -1 : undefined);
      if (q === '"') value = value.replace(/\\(["\\$`])/g, '$1').replace(/\\\n/g, '');
    } else {
      while (value.endsWith('\\') && i + 1 < lines.length) value = value.slice(0, -1) + lines[++i].trim();
    }
    env.set(name, [value, file]);
  }
}
for (const [name, [value, from]] of env)
  if (/^EDGEBLOCKS_[A-Za-z0-9_]*$/.test(name)) process.stdout.write(`${name}\0${value}\0${from}\0`);
