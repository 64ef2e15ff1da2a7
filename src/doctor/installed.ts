// The settings the installed service starts with, as the tools beside it read them
// (`edgeblocks doctor`, plain `edgeblocks check`): its config file and data dir under a root
// (loadInstalledConfig), and the EDGEBLOCKS_ variables its unit and drop-ins give it, which the
// tool's own environment lacks under sudo. A refusal of one of those variables names the file
// that sets it.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { loadInstalledConfig, type Config, type ParsedArgs } from '../config.js';
import { SETTINGS } from '../config-schema.js';
import { edgeblocksVariables, unitEnvironment, type UnitVariable } from './unit-environment.js';

export const SERVICE_UNIT = 'edgeblocks.service';

/**
 * The EDGEBLOCKS_ variables the installed unit under `root` and its drop-ins give the service,
 * less those the tool's own environment sets (they win). Not EDGEBLOCKS_CONFIG: the unit's
 * ExecStart gives --config, which wins over it; nor EDGEBLOCKS_DATA_DIR when the tool is given a
 * data dir of its own (against the unit's --data-dir, loadConfig refuses it).
 */
export function serviceVariables(
  root: string,
  values: ParsedArgs['values'],
  env: NodeJS.ProcessEnv = process.env,
): Map<string, UnitVariable> {
  const unit = join(root, 'etc/systemd/system', SERVICE_UNIT);
  const found = unitEnvironment(root.replace(/\/+$/, ''), SERVICE_UNIT, unit, `/etc/systemd/system/${SERVICE_UNIT}`);
  const vars = edgeblocksVariables(found ?? new Map());
  vars.delete('EDGEBLOCKS_CONFIG');
  if (values.dataDir !== undefined) vars.delete('EDGEBLOCKS_DATA_DIR');
  for (const name of [...vars.keys()]) if (env[name] !== undefined) vars.delete(name);
  return vars;
}

/** The installed service's configuration under `root`, with its unit's variables `fromUnit`. */
export function serviceConfig(
  values: ParsedArgs['values'],
  root: string,
  fromUnit: Map<string, UnitVariable>,
  env: NodeJS.ProcessEnv = process.env,
): Config {
  const unit = Object.fromEntries([...fromUnit].map(([name, { value }]) => [name, value]));
  return loadInstalledConfig(values, env, root, unit);
}

/**
 * "; the service gets NAME from FILE (...)" for a refusal of a setting the service takes from its
 * unit (the message names the variable, or the refused setting is that variable's), else ''.
 */
export function unitOrigin(e: unknown, fromUnit: Map<string, UnitVariable>): string {
  if (!(e instanceof Error)) return '';
  // By its key, not its class: a check's refusal may come from the bundle's copy of ConfigError.
  const key = (e as { key?: unknown }).key;
  const env = SETTINGS.find((s) => s.key === key)?.schema.env;
  const set = [...fromUnit].find(([name]) => new RegExp(`\\b${name}\\b`).test(e.message) || name === env);
  return set ? `; the service gets ${set[0]} from ${set[1].from} (sudo systemctl edit edgeblocks)` : '';
}

/** Why a --root DIR is no root (a misspelt one would be taken as an empty system), or null. */
export function notARoot(dir: string): string | null {
  try {
    return statSync(dir).isDirectory() ? null : 'not a directory';
  } catch {
    return 'no such directory';
  }
}
