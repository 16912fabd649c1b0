// Validation of the model's tool arguments: every failure names the offending field.
import { ToolError } from './types';

type Args = Record<string, unknown>;

/** One tool call's arguments, read field by field; a refusal names the tool and the field. */
export interface ToolArgs {
  string(field: string, opts?: { allowEmpty?: boolean }): string;
  optionalString(field: string): string | undefined;
  optionalBoolean(field: string): boolean | undefined;
  optionalNumber(field: string, opts?: { integer?: boolean; min?: number }): number | undefined;
  stringArray(field: string): string[];
  /** The error for a rule of the tool's own, in the same words as the checks above. */
  invalid(field: string, what: string): ToolError;
}

/** Reads `raw` (an object or its JSON text, as the chat-completions API delivers it) for `tool`. */
export function toolArgs(tool: string, raw: unknown): ToolArgs {
  const args = parseArgs(tool, raw);
  return {
    string: (field, opts) => requiredString(tool, args, field, opts),
    optionalString: (field) => optionalString(tool, args, field),
    optionalBoolean: (field) => optionalBoolean(tool, args, field),
    optionalNumber: (field, opts) => optionalNumber(tool, args, field, opts),
    stringArray: (field) => requiredStringArray(tool, args, field),
    invalid: (field, what) => invalid(tool, field, what),
  };
}

function parseArgs(tool: string, raw: unknown): Args {
  let value = raw;
  if (value === undefined || value === null || value === '') value = {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new ToolError(`invalid arguments for ${tool}: not valid JSON`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ToolError(`invalid arguments for ${tool}: expected a JSON object`);
  }
  return value as Args;
}

const invalid = (tool: string, field: string, what: string): ToolError => new ToolError(`invalid arguments for ${tool}: '${field}' ${what}`);

function requiredString(tool: string, args: Args, field: string, opts: { allowEmpty?: boolean } = {}): string {
  const v = args[field];
  if (v === undefined || v === null) throw invalid(tool, field, 'is required (string)');
  if (typeof v !== 'string') throw invalid(tool, field, `must be a string, got ${typeName(v)}`);
  if (!opts.allowEmpty && v.length === 0) throw invalid(tool, field, 'must not be empty');
  return v;
}

function optionalString(tool: string, args: Args, field: string): string | undefined {
  const v = args[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(tool, field, `must be a string, got ${typeName(v)}`);
  return v;
}

function optionalBoolean(tool: string, args: Args, field: string): boolean | undefined {
  const v = args[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalid(tool, field, `must be a boolean, got ${typeName(v)}`);
  return v;
}

function optionalNumber(tool: string, args: Args, field: string, opts: { integer?: boolean; min?: number } = {}): number | undefined {
  const v = args[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(tool, field, `must be a number, got ${typeName(v)}`);
  if (opts.integer && !Number.isInteger(v)) throw invalid(tool, field, 'must be an integer');
  if (opts.min !== undefined && v < opts.min) throw invalid(tool, field, `must be >= ${opts.min}`);
  return v;
}

function requiredStringArray(tool: string, args: Args, field: string): string[] {
  const v = args[field];
  if (v === undefined || v === null) throw invalid(tool, field, 'is required (array of strings)');
  if (!Array.isArray(v)) throw invalid(tool, field, `must be an array of strings, got ${typeName(v)}`);
  if (v.length === 0) throw invalid(tool, field, 'must not be empty');
  v.forEach((item, i) => {
    if (typeof item !== 'string') throw invalid(tool, `${field}[${i}]`, `must be a string, got ${typeName(item)}`);
  });
  if ((v[0] as string).length === 0) throw invalid(tool, `${field}[0]`, 'must not be empty');
  return v as string[];
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
