// The LLM worker's workspace tools: definitions for the model and one entry point to run them.
import { editFile, readFile, writeFile } from './file-tools';
import { listDir } from './list-dir';
import { runCommand } from './run-command';
import { searchText } from './search-text';
import { workspaceRoot } from './workspace';
import { redactSecrets } from './redact';
import { sandboxSettingsFromEnv } from './sandbox';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_CHARS, ResolvedToolOptions, ToolError, ToolOptions, ToolResult, fail } from './types';

export { TOOL_DEFINITIONS } from './definitions';
export type { ToolOptions, ToolResult } from './types';

type Handler = (root: string, args: unknown, opts: ResolvedToolOptions) => Promise<ToolResult>;

const HANDLERS: Record<string, Handler> = {
  read_file: readFile,
  write_file: (root, args) => writeFile(root, args),
  edit_file: (root, args) => editFile(root, args),
  list_dir: listDir,
  search_text: searchText,
  run_command: runCommand,
};

export const TOOL_NAMES: readonly string[] = Object.keys(HANDLERS);

/**
 * Runs one tool call inside `workspace`. Never throws: bad arguments, refused paths and
 * failed commands come back as `{ ok: false, output }` for the model to read.
 */
export async function runTool(workspace: string, name: string, args: unknown, opts: ToolOptions = {}): Promise<ToolResult> {
  const handler = Object.prototype.hasOwnProperty.call(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (!handler) return fail(`unknown tool: ${String(name)}; known tools: ${TOOL_NAMES.join(', ')}`);
  const resolved: ResolvedToolOptions = {
    commandTimeoutMs: positiveOr(opts.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS),
    maxOutputChars: positiveOr(opts.maxOutputChars, DEFAULT_MAX_OUTPUT_CHARS),
    signal: opts.signal,
    sandbox: opts.sandbox ?? sandboxSettingsFromEnv(),
  };
  try {
    const root = await workspaceRoot(workspace);
    const result = await handler(root, args, resolved);
    return { ...result, output: redactSecrets(result.output) };
  } catch (err) {
    if (err instanceof ToolError) return fail(redactSecrets(`${name}: ${err.message}`));
    return fail(redactSecrets(`${name} failed: ${err instanceof Error ? err.message : String(err)}`));
  }
}

function positiveOr(v: number | undefined, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fallback;
}
