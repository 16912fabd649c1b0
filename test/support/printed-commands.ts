// The command lines in what Replanner prints, found as a person would copy them (V7): wherever they
// stand (a line of their own, after a label such as "Resume:", inside backticks, in a sentence),
// from the first word (`npx replanner`, a bare `replanner` or `temporal`, `npm run`, `kill $(`,
// `export`, `mkdir -p`, with any VAR=value before it) to where the prose goes on: a backtick, two
// spaces, " (", " #", " ·", " —", a comma, a semicolon, ". ", or a ")" closing what opened before.
// Nothing here knows which outputs hold commands: a command added anywhere is found.

/** The Temporal CLI's own commands: `temporal <one of these>` is a command, `the temporal CLI` is not. */
const TEMPORAL_COMMANDS = ['workflow', 'activity', 'batch', 'config', 'env', 'operator', 'schedule', 'server', 'task-queue', 'worker', 'help'];

const START = /(?<=^|[\s`("'])((?:[A-Z][A-Z0-9_]*=[^\s`]+ )*)(npx replanner |replanner |temporal |npm run |kill \$\(|export [A-Z]|mkdir -p )/g;

/** Where the command that starts at `from` ends (see the top of this file). */
function endOf(line: string, from: number): number {
  let quote: string | undefined;
  let depth = 0;
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '`' || c === ',' || c === ';') return i;
    else if (c === '$' && line[i + 1] === '(') {
      depth++;
      i++;
    } else if (c === ')') {
      if (depth === 0) return i;
      depth--;
    } else if (c === '.' && line[i - 1] !== '.' && line[i + 1] !== '.' && (i + 1 === line.length || line[i + 1] === ' ')) return i;
    else if (c === ' ' && /^ (?: |\(|#|·|—)/.test(line.slice(i))) return i;
  }
  return line.length;
}

/**
 * Every command line in `text`, in order, each once. `commandNames`: the replanner commands (the
 * first word after `replanner`), so that "replanner worker: …" (a log line's name) is no command.
 */
export function extractCommands(text: string, commandNames: readonly string[]): string[] {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    START.lastIndex = 0;
    for (let m = START.exec(line); m; m = START.exec(line)) {
      const end = endOf(line, m.index + m[0].length);
      const cmd = line.slice(m.index, end).trim();
      START.lastIndex = Math.max(end, m.index + 1);
      const verb = m[2]!;
      // The word after the program; "replanner worker: …" names a log's writer, not a command.
      const [, next = '', colon] = /^([\w-]*)(:?)/.exec(line.slice(m.index + m[0].length)) ?? [];
      if (colon) continue;
      const placeholder = line.slice(m.index + m[0].length).startsWith('<');
      if (/replanner $/.test(verb) && !placeholder && !commandNames.includes(next) && !['--help', 'help'].includes(next)) continue;
      if (verb === 'temporal ' && !TEMPORAL_COMMANDS.includes(next)) continue;
      if (!found.includes(cmd)) found.push(cmd);
    }
  }
  return found;
}

/** The values placeholders take: the run's id, its worker's queue, an answer. */
export interface Fill {
  runId?: string;
  queue?: string;
  answer: string;
  /** Literal paths a printed example uses, and the test's own in their place (e.g. /tmp/tryout). */
  paths: Record<string, string>;
}

/** The command with its placeholders filled where the values are known (`<command>`: one command, status). */
export function fillPlaceholders(cmd: string, f: Fill): string {
  let out = cmd;
  for (const [from, to] of Object.entries(f.paths)) out = out.split(from).join(to);
  const values: [RegExp, string | undefined][] = [
    [/<runId>|<id>/g, f.runId],
    [/<questionId>/g, 'q1'],
    [/<your answer>|<text>|<answer>/g, f.answer],
    [/<queue>/g, f.queue],
    [/<command>/g, 'status'],
  ];
  for (const [re, v] of values) if (v !== undefined) out = out.replace(re, v);
  return out;
}

/** The command without its quoted parts (what a syntax mark outside quotes is looked for in). */
const unquoted = (cmd: string) => cmd.replace(/'[^']*'|"[^"]*"/g, '""');

/**
 * A line that shows a form rather than a command to run: [optional] parts, a|b choices, "...",
 * a placeholder left unfilled (<taskId>), or a metavariable (DIR, FILE, N).
 */
export function isSyntax(cmd: string): boolean {
  const bare = unquoted(cmd);
  return /<[^>]+>/.test(cmd) || /[[\]|]|\.\.\.|…/.test(bare) || /(^|\s)[A-Z]+(?=\s|$)/.test(bare);
}

/** The `--flags` a syntax line names (outside quotes). */
export const flagsOf = (cmd: string): string[] => [...new Set(unquoted(cmd).match(/--[a-z][a-z-]*/g) ?? [])];

/** The replanner command path a line starts with (`['worker', 'stop']`), longest known first. */
export function commandPathOf(cmd: string, paths: readonly string[][]): string[] | undefined {
  const words = cmd.replace(/^npx replanner /, '').split(/\s+/);
  return [...paths].sort((a, b) => b.length - a.length).find((p) => p.every((w, i) => words[i] === w));
}
