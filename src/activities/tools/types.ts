// Shared types of the worker's workspace tools (OpenAI chat-completions tool format).
import type { SandboxSettings } from './sandbox';

/** One tool as the OpenAI chat-completions API expects it; `parameters` is a JSON Schema. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ToolOptions {
  /** Upper bound for run_command, whatever the model asks for. Default 60000. */
  commandTimeoutMs?: number;
  /** Cap on the text handed back to the model. Default 8000. */
  maxOutputChars?: number;
  /** Aborts a running command (e.g. on activity cancellation). */
  signal?: AbortSignal;
  /** How commands are confined; default: the worker's settings from its environment. */
  sandbox?: SandboxSettings;
}

/** What the model sees. Failures are `ok: false` with a readable message, never thrown. */
export interface ToolResult {
  ok: boolean;
  output: string;
  /** The call was cut off (or never started) because its signal aborted: it did not finish. */
  aborted?: true;
}

/** Options with defaults applied. */
export interface ResolvedToolOptions {
  commandTimeoutMs: number;
  maxOutputChars: number;
  signal?: AbortSignal;
  sandbox: SandboxSettings;
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_OUTPUT_CHARS = 8_000;

/** Directories never listed or searched. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git', '.replanner']);

/** A failure the tool reports to the model (caught by runTool, never escapes it). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

export const fail = (output: string): ToolResult => ({ ok: false, output });
export const succeed = (output: string): ToolResult => ({ ok: true, output });
