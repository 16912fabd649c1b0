// G2: where a token must never be: the workspace's git settings and files (the run's records
// included), git's global settings, the bare repository's settings, refs, commit messages and
// files, every history of a run (the run and all its children), and whatever text a test adds
// (status, logs). `tokenHits` names each place that holds it.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { gitIn } from './git-repos';

export interface Place {
  name: string;
  text: string;
}

function filesUnder(dir: string, skip: (rel: string) => boolean = () => false): Place[] {
  const out: Place[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (skip(path.relative(dir, p))) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push({ name: p, text: fs.readFileSync(p).toString('latin1') });
    }
  };
  walk(dir);
  return out;
}

/** The workspace (every file, .git and .replanner included) and git's view of its settings. */
export function workspacePlaces(workspace: string): Place[] {
  return [
    { name: 'git config -l (global included)', text: gitIn(workspace, ['config', '-l', '--show-origin']) },
    { name: 'git remote -v', text: gitIn(workspace, ['remote', '-v']) },
    ...filesUnder(workspace),
  ];
}

/** A bare repository: its settings, refs, every commit message and every file of every commit, and its files on disk. */
export function barePlaces(bare: string): Place[] {
  return [
    { name: `${bare} refs`, text: gitIn(bare, ['for-each-ref']) },
    { name: `${bare} commits`, text: gitIn(bare, ['log', '--all', '--format=%H %an %ae %B', '-p']) },
    ...filesUnder(bare),
  ];
}

/** Every history of the run's workflows (the run, its phases, tasks and lock), as the temporal CLI prints them. */
export async function historyPlaces(client: Client, runId: string): Promise<Place[]> {
  const out: Place[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH 'run-${runId}'` })) {
    const json = execFileSync(
      process.env.TEMPORAL_CLI_PATH!,
      ['workflow', 'show', '--workflow-id', wf.workflowId, '--run-id', wf.runId, '--address', process.env.TEMPORAL_ADDRESS!, '--output', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    out.push({ name: `history ${wf.workflowId}@${wf.runId}`, text: json });
  }
  return out;
}

/** The names of the places holding `token` (plain or base64, as Basic auth would carry it). */
export function tokenHits(token: string, places: readonly Place[]): string[] {
  const forms = [token, Buffer.from(token).toString('base64'), Buffer.from(`x-access-token:${token}`).toString('base64')];
  return places.filter((p) => forms.some((f) => p.text.includes(f))).map((p) => p.name);
}
