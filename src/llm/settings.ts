// What the worker's LLM calls start from, read from the environment: the endpoint, the model, the key
// and the limits. Apart from the gateway (./gateway.ts) so that the CLI, which routes runs by the
// endpoint and model (src/route.ts), reads them without loading the OpenAI client.
import type { LlmTimeouts } from '../domain/llm-timeouts';

export interface LlmSettings {
  apiKey: string;
  baseURL: string;
  model: string;
  /** The worker's total cap per request (a run's `llm.timeoutSeconds` overrides it per call); absent: none. */
  timeoutMs?: number;
  /** The worker's progress limits (a run's `llm.*` override them per call; absent: the defaults). */
  limits?: Partial<Omit<LlmTimeouts, 'totalMs'>>;
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-4o-mini';

/** A positive number from the environment, or undefined. */
const envNumber = (v: string | undefined, scale = 1): number | undefined => {
  const n = Number(v);
  return v && Number.isFinite(n) && n > 0 ? n * scale : undefined;
};

/**
 * Reads OPENAI_API_KEY, OPENAI_BASE_URL, REPLANNER_MODEL, and the limits: REPLANNER_LLM_TIMEOUT_MS
 * (total cap), REPLANNER_LLM_CONNECT_TIMEOUT_SECONDS, REPLANNER_LLM_FIRST_TOKEN_TIMEOUT_SECONDS,
 * REPLANNER_LLM_READ_TOKENS_PER_SECOND, REPLANNER_LLM_STALL_TIMEOUT_SECONDS.
 */
export function llmSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LlmSettings {
  const limits = {
    connectMs: envNumber(env.REPLANNER_LLM_CONNECT_TIMEOUT_SECONDS, 1000),
    firstTokenMs: envNumber(env.REPLANNER_LLM_FIRST_TOKEN_TIMEOUT_SECONDS, 1000),
    readTokensPerSecond: envNumber(env.REPLANNER_LLM_READ_TOKENS_PER_SECOND),
    stallMs: envNumber(env.REPLANNER_LLM_STALL_TIMEOUT_SECONDS, 1000),
  };
  const timeoutMs = envNumber(env.REPLANNER_LLM_TIMEOUT_MS);
  return {
    apiKey: env.OPENAI_API_KEY || 'not-set',
    baseURL: env.OPENAI_BASE_URL || DEFAULT_BASE_URL,
    model: env.REPLANNER_MODEL || DEFAULT_MODEL,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    limits: Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
  };
}
