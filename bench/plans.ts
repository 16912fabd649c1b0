// The plans the bench runs and the LLM-bound critical path it is compared with (bench/README.md).
import type { RecordedRequest } from '../test/support/fake-openai';
import { taskIdOf, type ScenarioTask } from '../test/support/scenario';

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const r1 = (x: number) => Math.round(x * 10) / 10;

/** The 9-task graph: `chains` independent chains of `length` tasks, then one task joining their ends. */
export function chainGraph(chains: number, length: number): ScenarioTask[] {
  const tasks: ScenarioTask[] = [];
  for (let c = 0; c < chains; c++) {
    for (let i = 0; i < length; i++) {
      const id = `c${c}s${i}`;
      tasks.push({ id, title: `chain ${c} step ${i}`, dependencies: i ? [`c${c}s${i - 1}`] : [], files: { [`${id}.txt`]: id } });
    }
  }
  tasks.push({
    id: 'join',
    title: 'join',
    dependencies: Array.from({ length: chains }, (_, c) => `c${c}s${length - 1}`),
    files: { 'join.txt': 'j' },
  });
  return tasks;
}

export function independent(n: number): ScenarioTask[] {
  return Array.from({ length: n }, (_, i) => ({ id: `t${i}`, title: `task ${i}`, files: { [`t${i}.txt`]: `${i}` } }));
}

// ------------------------------------------------------------------ the critical-path bound

/** The task an LLM request belongs to, if any: worker steps and judges name it; execution replan decisions carry it. */
export function requestTaskId(req: RecordedRequest): string | undefined {
  // The execution decision's prompt names its action as "**Executed Action:**\ntask <id>: <title>".
  if (req.purpose === 'replan_decision') return /\*\*Executed Action:\*\*\s*\ntask (\S+):/.exec(req.text)?.[1];
  if (req.purpose === 'worker_step' || req.purpose === 'judge') return taskIdOf(req);
  return undefined;
}

/**
 * LLM calls on the longest chain of dependent calls: every call not tied to a task (phases, their
 * quality judge and replan decisions, reflection and its decision) plus, along the heaviest
 * dependency path of the plan, each task's own calls (worker steps, judge, replan decision).
 */
export function criticalPathCalls(requests: RecordedRequest[], plan: ScenarioTask[]): { calls: number; perTask: Map<string, number> } {
  const perTask = new Map<string, number>();
  let phaseCalls = 0;
  for (const req of requests) {
    const id = requestTaskId(req);
    if (id !== undefined && plan.some((t) => t.id === id)) perTask.set(id, (perTask.get(id) ?? 0) + 1);
    else phaseCalls++;
  }
  const longest = new Map<string, number>();
  const depth = (t: ScenarioTask): number => {
    const known = longest.get(t.id);
    if (known !== undefined) return known;
    const before = Math.max(0, ...(t.dependencies ?? []).map((d) => depth(plan.find((p) => p.id === d)!)));
    const v = before + (perTask.get(t.id) ?? 0);
    longest.set(t.id, v);
    return v;
  };
  return { calls: phaseCalls + Math.max(0, ...plan.map(depth)), perTask };
}
