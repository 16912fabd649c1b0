// `replanner temporal …`: the Temporal CLI the project fetched (scripts/ensure-temporal: it is in
// .tools/bin/, not on PATH), run with the connection Replanner itself uses (src/connection.ts), so
// the README's `temporal …` examples work as printed, against the same server and namespace.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { Command } from 'commander';
import { temporalTarget } from '../../connection';
import { temporalCliCommand } from '../../domain/printed-commands';
import { ensureTemporalCli } from '../backend';
import { act, EXIT, type CliContext } from './context';

const HELP = `Usage: ${temporalCliCommand('<temporal command and flags>')}

Runs the Temporal CLI (the copy Replanner fetched into .tools/bin/, or \`temporal\` on your PATH, or
the one TEMPORAL_CLI_PATH names) against the server and namespace Replanner uses: the same
TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_PROFILE, TLS and API key settings. Everything after
\`temporal\` goes to it unchanged; its exit code is this command's.

Examples:
  ${temporalCliCommand(`workflow list --query "WorkflowType = 'RunWorkflow'"`)}
  ${temporalCliCommand('workflow query --workflow-id run-<id> --name status')}
  ${temporalCliCommand('workflow describe --workflow-id run-<id>')}
  ${temporalCliCommand('help')}                 the Temporal CLI's own help
`;

export function temporalCommand(ctx: CliContext): Command {
  return (
    new Command('temporal')
      .description(`the Temporal CLI, with Replanner's connection settings (${temporalCliCommand('workflow list …')})`)
      .argument('[args...]', 'the Temporal CLI command and its flags')
      // Every flag is the Temporal CLI's, --help included (`replanner temporal --help` alone prints HELP).
      .helpOption(false)
      .allowUnknownOption()
      .passThroughOptions()
      .action(
        act(ctx, async (args: string[] = []) => {
          if (!args.length || (args.length === 1 && ['--help', '-h'].includes(args[0]!))) {
            ctx.out.write(HELP);
            return EXIT.OK;
          }
          return passThrough(ctx, args);
        }),
      )
  );
}

async function passThrough(ctx: CliContext, args: string[]): Promise<number> {
  // Progress lines only when it downloads; "using …" on every call would be noise.
  const cli = await ensureTemporalCli((line) => (/^ensure-temporal: using /.test(line) ? undefined : ctx.say(line)));
  const child = spawn(cli, args, { env: temporalCliEnv(process.env), stdio: ['inherit', 'pipe', 'pipe'] });
  child.stdout.on('data', (d: Buffer) => ctx.out.write(d.toString()));
  child.stderr.on('data', (d: Buffer) => ctx.err.write(d.toString()));
  return new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}

/**
 * The Temporal CLI's environment: the address and namespace Replanner resolved (its defaults and
 * profile included), TLS and the API key where Replanner uses them, and no empty TEMPORAL_*
 * variable (Replanner reads an empty one as unset). Certificates it reads from the same variables
 * and profile as Replanner does.
 */
export function temporalCliEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const t = temporalTarget(env);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!(k.startsWith('TEMPORAL_') && !k.startsWith('TEMPORAL_GRPC_META_') && v === '')) out[k] = v;
  out.TEMPORAL_ADDRESS = t.address;
  out.TEMPORAL_NAMESPACE = t.namespace;
  if (t.tls) out.TEMPORAL_TLS = 'true';
  if (t.connectOptions.apiKey) out.TEMPORAL_API_KEY = t.connectOptions.apiKey;
  return out;
}
