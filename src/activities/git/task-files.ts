// V3 / G1: the files a task's worker wrote or edited, read from its transcripts
// (<workspace>/.replanner/runs/<runId>/tasks/<taskId>/iteration-N/step-M.json). `replanner diff`
// lists them; a task's commit takes them (src/domain/git/commit.ts says which).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileChangesOf, type ToolCallRecord } from '../../domain/file-changes';
import { runDir, safeName } from '../run-files';

/** The run's task directories. */
export function tasksDirOf(workspace: string, runId: string): string {
  return path.join(runDir(workspace, runId), 'tasks');
}

const byNumber = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });

/** Every tool call of a task, iterations and steps in order (none when it has no transcript). */
export function toolCallsOf(taskDir: string): ToolCallRecord[] {
  const calls: ToolCallRecord[] = [];
  if (!fs.existsSync(taskDir)) return calls;
  for (const iteration of fs
    .readdirSync(taskDir)
    .filter((d) => d.startsWith('iteration-'))
    .sort(byNumber)) {
    const dir = path.join(taskDir, iteration);
    for (const step of fs
      .readdirSync(dir)
      .filter((f) => /^step-\d+\.json$/.test(f))
      .sort(byNumber)) {
      try {
        const s = JSON.parse(fs.readFileSync(path.join(dir, step), 'utf8')) as { calls?: ToolCallRecord[] };
        for (const c of s.calls ?? []) if (typeof c?.name === 'string' && typeof c.arguments === 'string') calls.push(c);
      } catch {
        /* a step cut off by a crash: its calls ran again in the retried step */
      }
    }
  }
  return calls;
}

/** G1: the workspace-relative paths `taskId`'s worker wrote or edited. */
export function writtenPaths(workspace: string, runId: string, taskId: string): string[] {
  const root = path.resolve(workspace);
  const out: string[] = [];
  for (const c of fileChangesOf(toolCallsOf(path.join(tasksDirOf(workspace, runId), safeName(taskId))))) {
    const rel = path.relative(root, path.resolve(root, c.path));
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) out.push(rel.split(path.sep).join('/'));
  }
  return out;
}
