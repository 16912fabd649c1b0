// Loading the config (X12) — YAML file, then environment overrides. This module does I/O (fs, env),
// so it lives with the CLI, not in src/domain (pure); workflows receive the parsed ReplannerConfig.
//
// Sources, in order: the file at `path`, else at env REPLANNER_CONFIG, else no file (defaults);
// then the environment overrides:
//   REPLANNING_ENABLED         true|false|1|0        → replanning.enabled
//   REPLANNING_MIN_CONFIDENCE  number in 0..1        → replanning.llm_decision.min_confidence_threshold
//   MAX_TOTAL_REPLANS          whole number ≥ 0      → replanning.global.max_total_replans
//   REPLANNER_MODEL            (default gpt-4o-mini) → budget.model, only where budget.prices has
//                                                     several models, this one among them, and names none
// Empty env values count as unset.
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError, parseConfig, type ReplannerConfig } from '../domain/config';
import { DEFAULT_MODEL } from '../llm/gateway';

interface LoadConfigOptions {
  /** YAML file; overrides env REPLANNER_CONFIG. */
  path?: string;
  /** Usually process.env. */
  env?: Record<string, string | undefined>;
}

export function loadConfig(opts: LoadConfigOptions = {}): ReplannerConfig {
  const env = opts.env ?? {};
  const file = opts.path ?? nonEmpty(env.REPLANNER_CONFIG);
  const raw = file === undefined ? {} : readYaml(file, opts.path === undefined ? 'REPLANNER_CONFIG' : undefined);
  const { value, used } = applyEnv(raw ?? {}, env);
  try {
    return parseConfig(value);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const where = [file ? `file ${file}` : '', used.length ? `env ${used.join(', ')}` : ''].filter(Boolean).join(' + ');
    const err = new ConfigError(e.issues);
    if (where) err.message = `${e.message} [from ${where}]`;
    throw err;
  }
}

function readYaml(file: string, viaEnv?: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    // Not "invalid config": there is no config to be invalid. Still a ConfigError (exit 2).
    const err = new ConfigError(unreadable(file, (e as NodeJS.ErrnoException).code, (e as Error).message));
    err.message = `${err.issues[0]!.message}${viaEnv ? ` (named by ${viaEnv})` : ''}`;
    throw err;
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    const pos = err.linePos?.[0];
    const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
    const msg = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(`YAML syntax error in ${where} (line ${pos?.line ?? '?'}): ${msg}`);
  }
  return doc.toJS() as unknown;
}

/** Why a config file cannot be read, in words (never a bare ENOENT). */
function unreadable(file: string, code: string | undefined, message: string): string {
  switch (code) {
    case 'ENOENT':
      return `the config file ${file} does not exist`;
    case 'EISDIR':
      return `the config file ${file} is a directory, not a file`;
    case 'EACCES':
    case 'EPERM':
      return `the config file ${file} cannot be read: permission denied`;
    default:
      return `the config file ${file} cannot be read: ${message}`;
  }
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function parseBool(name: string, v: string): boolean {
  const s = v.trim().toLowerCase();
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0') return false;
  throw new ConfigError(`environment variable ${name}: must be true, false, 1 or 0 (got "${v}")`);
}

function parseProb(name: string, v: string): number {
  const n = Number(v.trim());
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new ConfigError(`environment variable ${name}: must be a number between 0 and 1 (got "${v}")`);
  }
  return n;
}

function parseCount(name: string, v: string): number {
  const s = v.trim();
  if (!/^\d+$/.test(s)) throw new ConfigError(`environment variable ${name}: must be a whole number ≥ 0 (got "${v}")`);
  return Number(s);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets a nested key on a copy; leaves non-objects in the way alone so parseConfig reports them. */
function setIn(root: unknown, path: string[], value: unknown): unknown {
  if (!isObj(root)) return root;
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) return { ...root, [head]: value };
  const child = root[head] === undefined ? {} : root[head];
  return { ...root, [head]: setIn(child, rest, value) };
}

function applyEnv(raw: unknown, env: Record<string, string | undefined>): { value: unknown; used: string[] } {
  let value = raw;
  const used: string[] = [];
  // The `planning: { replanning: … }` wrapper a config may use: override inside it when that is
  // what the file uses.
  const base = isObj(raw) && isObj(raw.planning) && 'replanning' in raw.planning ? ['planning', 'replanning'] : ['replanning'];
  const enabled = nonEmpty(env.REPLANNING_ENABLED);
  if (enabled !== undefined) {
    value = setIn(value, [...base, 'enabled'], parseBool('REPLANNING_ENABLED', enabled));
    used.push('REPLANNING_ENABLED');
  }
  const conf = nonEmpty(env.REPLANNING_MIN_CONFIDENCE);
  if (conf !== undefined) {
    value = setIn(value, [...base, 'llm_decision', 'min_confidence_threshold'], parseProb('REPLANNING_MIN_CONFIDENCE', conf));
    used.push('REPLANNING_MIN_CONFIDENCE');
  }
  const total = nonEmpty(env.MAX_TOTAL_REPLANS);
  if (total !== undefined) {
    value = setIn(value, [...base, 'global', 'max_total_replans'], parseCount('MAX_TOTAL_REPLANS', total));
    used.push('MAX_TOTAL_REPLANS');
  }
  // A price table of several models that names none: the run's model is this shell's
  // REPLANNER_MODEL (what its LLM calls use), when the table prices it.
  const budget = isObj(value) && isObj(value.budget) ? value.budget : undefined;
  const model = nonEmpty(env.REPLANNER_MODEL) ?? DEFAULT_MODEL;
  if (budget && budget.model === undefined && isObj(budget.prices) && Object.keys(budget.prices).length > 1 && model in budget.prices) {
    value = setIn(value, ['budget', 'model'], model);
    used.push('REPLANNER_MODEL');
  }
  return { value, used };
}
