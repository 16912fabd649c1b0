// The tools as offered to the model (OpenAI chat-completions `tools`). The parameters are
// strict-mode valid (every property required, the optional ones nullable: null reads as absent in
// ./args), so the gateway can offer them as strict functions where the server takes strict schemas.
import { makeStrict } from '../../llm/strict-schema';
import { ToolDefinition } from './types';

const def = (name: string, description: string, properties: Record<string, unknown>, required: string[]): ToolDefinition => ({
  type: 'function',
  function: {
    name,
    description,
    parameters: makeStrict({ type: 'object', properties, required }),
  },
});

const relPath = (what: string) => ({
  type: 'string',
  description: `${what}, relative to the workspace root (absolute paths and paths leaving the workspace are refused)`,
});

export const TOOL_DEFINITIONS: ToolDefinition[] = [
  def(
    'read_file',
    'Read a UTF-8 text file from the workspace. Long output is truncated; use offset/limit to page through large files.',
    {
      path: relPath('File to read'),
      offset: { type: 'integer', minimum: 1, description: '1-based line number to start at (default 1)' },
      limit: { type: 'integer', minimum: 1, description: 'Maximum number of lines to return (default: to the end)' },
    },
    ['path'],
  ),
  def(
    'write_file',
    'Create or overwrite a file with the given content. Parent directories are created as needed.',
    { path: relPath('File to write'), content: { type: 'string', description: 'The complete new file content' } },
    ['path', 'content'],
  ),
  def(
    'edit_file',
    'Replace one exact occurrence of old_string with new_string in a file. old_string must occur exactly once: ' +
      'include enough surrounding lines to make it unique. Whitespace must match exactly.',
    {
      path: relPath('File to edit'),
      old_string: { type: 'string', description: 'Exact text to replace (must be unique in the file)' },
      new_string: { type: 'string', description: 'Replacement text (may be empty to delete)' },
    },
    ['path', 'old_string', 'new_string'],
  ),
  def(
    'list_dir',
    'List a directory of the workspace. Directories end with "/", symlinks show "-> target". ' +
      'node_modules, .git and .replanner are skipped. Paths are relative to the workspace root.',
    {
      path: relPath('Directory to list (default: the workspace root)'),
      depth: { type: 'integer', minimum: 1, maximum: 5, description: 'How many levels to descend (default 1, max 5)' },
    },
    [],
  ),
  def(
    'search_text',
    'Search text files for a string (or a JavaScript regular expression with regex=true). Returns "file:line: text" ' +
      'lines. Skips binary files, node_modules, .git and .replanner.',
    {
      pattern: { type: 'string', description: 'Text to find (literal unless regex is true); case-sensitive' },
      path: relPath('File or directory to search (default: the workspace root)'),
      regex: { type: 'boolean', description: 'Treat pattern as a regular expression (default false)' },
      max_results: { type: 'integer', minimum: 1, description: 'Maximum number of matching lines (default 50)' },
    },
    ['pattern'],
  ),
  def(
    'run_command',
    'Run a program with arguments (no shell: no pipes, redirects, globs or &&; call e.g. ["sh","-c","..."] ' +
      'explicitly if you need one). Returns the exit code and combined stdout/stderr (long output keeps head and tail). ' +
      'The command is killed when it exceeds its timeout. It runs in a sandbox: only the workspace and a private /tmp ' +
      'are writable, there is no network unless the operator allowed it, and processes it leaves behind end with it.',
    {
      argv: {
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        description: 'Program and its arguments, e.g. ["npm", "test"]',
      },
      cwd: relPath('Working directory (default: the workspace root)'),
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, description: 'Timeout in seconds (capped by the worker limit)' },
    },
    ['argv'],
  ),
];
