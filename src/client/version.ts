// `replanner --version` (`-V`): this package's version, the Temporal SDK it is built on, the Temporal
// CLI it would use (found the way scripts/ensure-temporal finds it, never fetched here) and Node.js.
// `--json` prints the same as one object. It loads no Temporal code: it reads package.json files.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isExecutableFile, findOnPath } from '../executable-file';
import { PROJECT_ROOT } from '../project-root';
import type { Output } from './commands/context';

export interface Versions {
  replanner: string;
  temporalSdk: string;
  /** The CLI scripts/ensure-temporal would use now; `path` undefined when none is here yet (`pinned` is fetched then). */
  temporalCli: { version?: string; path?: string; pinned: string };
  node: string;
}

export function isVersionFlag(arg: string): boolean {
  return arg === '--version' || arg === '-V';
}

/** Prints the versions; `rest` may be `--json`, nothing else. */
export function printVersion(rest: string[], out: Output, say: (s: string) => void, env: NodeJS.ProcessEnv = process.env): number {
  const unknown = rest.filter((a) => a !== '--json');
  if (unknown.length) {
    say(`replanner: --version takes only --json (got "${unknown.join(' ')}") (see: replanner --help)`);
    return 2;
  }
  const v = versions(env);
  if (rest.includes('--json')) out.write(`${JSON.stringify(v, null, 2)}\n`);
  else out.write(`${versionLines(v).join('\n')}\n`);
  return 0;
}

export function versionLines(v: Versions): string[] {
  const cli = v.temporalCli;
  return [
    `replanner ${v.replanner}`,
    `Temporal TypeScript SDK ${v.temporalSdk}`,
    cli.path
      ? `Temporal CLI ${cli.version ?? '(its version could not be read)'}: ${cli.path}`
      : `Temporal CLI: not here yet (the first \`replanner run\` or \`npm run demo\` fetches ${cli.pinned})`,
    `Node.js ${v.node}`,
  ];
}

export function versions(env: NodeJS.ProcessEnv = process.env): Versions {
  const cli = temporalCliPath(env);
  return {
    replanner: packageVersion(path.join(PROJECT_ROOT, 'package.json')),
    temporalSdk: packageVersion(require.resolve('@temporalio/client/package.json')),
    temporalCli: { ...(cli ? { path: cli, version: cliVersion(cli) } : {}), pinned: pinnedCliVersion() },
    node: process.version,
  };
}

function packageVersion(file: string): string {
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

/** scripts/ensure-temporal's order: TEMPORAL_CLI_PATH, `temporal` on PATH, the fetched .tools/bin/temporal. */
function temporalCliPath(env: NodeJS.ProcessEnv): string | undefined {
  // A TEMPORAL_CLI_PATH that is not a CLI is what the script would refuse: shown as it is.
  if (env.TEMPORAL_CLI_PATH) return env.TEMPORAL_CLI_PATH;
  const fetched = path.join(PROJECT_ROOT, '.tools', 'bin', 'temporal');
  return findOnPath('temporal', env.PATH) ?? (isExecutableFile(fetched) ? fetched : undefined);
}

/** "1.9.1 (Server 1.32.0, UI 2.54.1)" from `temporal --version` ("temporal version 1.9.1 (…)"). */
function cliVersion(cli: string): string | undefined {
  try {
    const first = execFileSync(cli, ['--version'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0]!;
    return first.replace(/^temporal version /, '').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The version scripts/ensure-temporal fetches when no CLI is here. */
function pinnedCliVersion(): string {
  try {
    const script = fs.readFileSync(path.join(PROJECT_ROOT, 'scripts', 'ensure-temporal'), 'utf8');
    return /^wheel_version="([^"]+)"/m.exec(script)?.[1] ?? 'the pinned version';
  } catch {
    return 'the pinned version';
  }
}
