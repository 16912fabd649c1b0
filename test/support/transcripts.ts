// What a run's worker steps recorded in their transcripts (<workspace>/.replanner/runs/<runId>/tasks/<taskId>/):
// each tool call with how it ended, as the step files keep it.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface RecordedCall {
  id: string;
  name: string;
  arguments: string;
  ok?: boolean;
  output?: string;
}

/** The `name` tool calls (e.g. run_command) of task `taskId`, in every iteration's step files. */
export function recordedCalls(workspace: string, runId: string, taskId: string, name: string): RecordedCall[] {
  const dir = path.join(workspace, '.replanner', 'runs', runId, 'tasks', taskId);
  return fs
    .readdirSync(dir)
    .flatMap((it) =>
      fs
        .readdirSync(path.join(dir, it))
        .filter((f) => /^step-\d+\.json$/.test(f))
        .map((f) => path.join(dir, it, f)),
    )
    .flatMap((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { calls: RecordedCall[] }).calls)
    .filter((c) => c.name === name);
}
