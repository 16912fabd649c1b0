// How a config (or a run's options) that cannot be used is reported: every problem with its
// dotted key path, a hint for a mistyped key, and the value that was given.
import type { z } from 'zod';
import { clip } from '../text';

export interface ConfigIssue {
  /** Dotted key path, e.g. `replanning.llm_decision.min_confidence_threshold` ('' = the root). */
  path: string;
  message: string;
}

/** A config that cannot be used. The message names the key path(s) and the reason. */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[] | string) {
    const list = typeof issues === 'string' ? [{ path: '', message: issues }] : issues;
    super(`invalid config: ${list.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`);
    this.name = 'ConfigError';
    this.issues = list;
  }
}

/**
 * One zod issue as the user reads it. `seedPrefix`: the config wrote `replanning` under `planning:`
 * (the nested spelling). `defaults`: the config with every default, where a mistyped key's hint is
 * looked up (none: no hint).
 */
export function describeIssue(issue: z.core.$ZodIssue, seedPrefix: boolean, defaults?: unknown): ConfigIssue[] {
  const base = issue.path.map(String);
  if (seedPrefix && base[0] === 'replanning') base.unshift('planning');
  const join = (p: string[]) => p.join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => {
      const hint = suggestKey(defaults, issue.path.map(String), k);
      return { path: join([...base, k]), message: `unknown key${hint ? ` (did you mean "${hint}"?)` : ''}` };
    });
  }
  let message = issue.message;
  if (issue.code === 'invalid_type' && message.startsWith('Invalid input')) message = `must be a ${issue.expected}`;
  if ('input' in issue && issue.input !== undefined) message += ` (got ${show(issue.input)})`;
  return [{ path: join(base), message }];
}

function suggestKey(defaults: unknown, parentPath: string[], key: string): string | undefined {
  let node: unknown = defaults;
  for (const p of parentPath) node = isRecord(node) ? node[p] : undefined;
  // Keys that are all optional, so absent from the defaults (the budget, notifications, LLM request limits), are named here.
  const optionalKeys: Record<string, string[]> = {
    budget: ['maxTokens', 'maxCostUsd', 'model', 'prices'],
    llm: ['timeoutSeconds', 'connectTimeoutSeconds', 'firstTokenTimeoutSeconds', 'readTokensPerSecond', 'stallTimeoutSeconds', 'maxReplyTokens'],
    notifications: ['github', 'gitlab'],
    'notifications.github': ['repo', 'issue', 'pull'],
    'notifications.gitlab': ['project', 'issue', 'merge_request', 'url'],
  };
  const keys = optionalKeys[parentPath.join('.')] ?? (isRecord(node) ? Object.keys(node) : undefined);
  if (!keys) return undefined;
  let best: { k: string; d: number } | undefined;
  for (const k of keys) {
    const d = editDistance(k.toLowerCase(), key.toLowerCase());
    if (!best || d < best.d) best = { k, d };
  }
  return best && best.d <= Math.max(2, Math.floor(key.length / 4)) ? best.k : undefined;
}

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(dp[j]! + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return 'nothing';
  try {
    const s = JSON.stringify(v);
    return clip(s, 60, '...');
  } catch {
    // BigInt or a circular structure: name the kind rather than print '[object Object]'.
    return typeof v === 'bigint' ? `${v}n` : `a ${typeof v} that is not JSON`;
  }
}
