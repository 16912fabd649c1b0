// Where runs go: the task queue of an LLM endpoint + model. The CLI sends a run there and the
// worker polls it, so both read it from here (the policy, chooseTaskQueue, is in the domain).
import { createHash } from 'node:crypto';
import { chooseTaskQueue } from './domain/worker-lifecycle';
import { llmSettingsFromEnv } from './llm/settings';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Where a caller's environment sends its runs: the task queue and the worker settings it needs. */
export interface Route {
  taskQueue: string;
  /** REPLANNER_TASK_QUEUE was set: the user picked the queue. */
  explicit: boolean;
  endpoint: string;
  model: string;
  keySha256: string;
}

/** REPLANNER_TASK_QUEUE, else the queue of OPENAI_BASE_URL + REPLANNER_MODEL (never the key). */
export function routeOf(env: NodeJS.ProcessEnv = process.env): Route {
  const llm = llmSettingsFromEnv(env);
  return {
    taskQueue: chooseTaskQueue(env.REPLANNER_TASK_QUEUE, llm.baseURL, llm.model, sha256),
    explicit: Boolean(env.REPLANNER_TASK_QUEUE?.trim()),
    endpoint: llm.baseURL,
    model: llm.model,
    keySha256: sha256(llm.apiKey),
  };
}
