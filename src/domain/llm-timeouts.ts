// How long an LLM request may take, measured by its progress rather than by its total time. A
// local model on a CPU reads a long prompt slowly (tens of tokens a second, minutes for a planning
// prompt), then writes its reply token by token; every request streams, so the gateway sees each
// step. Four limits, each naming what happened when it strikes:
//
//   connect      the TCP (and TLS) connection is made                       seconds    → an outage
//   first token  the reply's first token arrives after the request is sent  minutes, plus the time to
//                                                                           read the prompt at the
//                                                                           slowest allowed speed
//   stall        the gap between two tokens of the reply                    a minute
//   total        the whole request (optional; none by default)
//
// Only "could not connect" is an outage (the run pauses and probes): a model that connected
// and is slow is alive, and a request that ran out of one of the other limits is retried, then the
// run pauses with the setting to raise named (src/domain/run/llm-outage.ts 'slow').
import { replannerCommand } from './printed-commands';

export interface LlmTimeouts {
  connectMs: number;
  /** The wait for the first token of an empty prompt; each prompt token adds 1 / readTokensPerSecond s. */
  firstTokenMs: number;
  /** The slowest prompt reading speed the first-token wait allows for (tokens per second). */
  readTokensPerSecond: number;
  stallMs: number;
  /** The whole request; absent: no cap (the other limits bound a request that stops progressing). */
  totalMs?: number;
}

export const DEFAULT_LLM_TIMEOUTS: Readonly<LlmTimeouts> = {
  connectMs: 10_000,
  firstTokenMs: 300_000,
  readTokensPerSecond: 8,
  stallMs: 60_000,
};

/** The settings that set each limit: the run's config key and the worker's environment variable. */
export const TIMEOUT_SETTINGS = {
  connect: { config: 'llm.connectTimeoutSeconds', env: 'REPLANNER_LLM_CONNECT_TIMEOUT_SECONDS' },
  first_token: { config: 'llm.firstTokenTimeoutSeconds', env: 'REPLANNER_LLM_FIRST_TOKEN_TIMEOUT_SECONDS' },
  read_speed: { config: 'llm.readTokensPerSecond', env: 'REPLANNER_LLM_READ_TOKENS_PER_SECOND' },
  stall: { config: 'llm.stallTimeoutSeconds', env: 'REPLANNER_LLM_STALL_TIMEOUT_SECONDS' },
  total: { config: 'llm.timeoutSeconds', env: 'REPLANNER_LLM_TIMEOUT_MS' },
} as const;

/** Bounds every limit is held to (the config's): a second to a day; reading speed 0.1 to 100,000 tokens/s. */
export const LIMIT_MIN_MS = 1000;
export const LIMIT_MAX_MS = 24 * 3_600_000;
export const READ_SPEED_MIN = 0.1;
export const READ_SPEED_MAX = 100_000;

const saneMs = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= LIMIT_MIN_MS && v <= LIMIT_MAX_MS ? Math.round(v) : undefined;
const saneSpeed = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= READ_SPEED_MIN && v <= READ_SPEED_MAX ? v : undefined;

/**
 * The limits of one request: the run's own (its config, carried in the activity's input) where sane,
 * else the worker's (its environment), else the defaults. Anything forged or absurd is ignored.
 */
export function resolveTimeouts(run: Partial<LlmTimeouts> | undefined, worker: Partial<LlmTimeouts> | undefined): LlmTimeouts {
  const pick = <K extends keyof LlmTimeouts>(k: K, sane: (v: unknown) => number | undefined): number | undefined =>
    sane(run?.[k]) ?? sane(worker?.[k]);
  const totalMs = pick('totalMs', saneMs);
  return {
    connectMs: pick('connectMs', saneMs) ?? DEFAULT_LLM_TIMEOUTS.connectMs,
    firstTokenMs: pick('firstTokenMs', saneMs) ?? DEFAULT_LLM_TIMEOUTS.firstTokenMs,
    readTokensPerSecond: pick('readTokensPerSecond', saneSpeed) ?? DEFAULT_LLM_TIMEOUTS.readTokensPerSecond,
    stallMs: pick('stallMs', saneMs) ?? DEFAULT_LLM_TIMEOUTS.stallMs,
    ...(totalMs !== undefined ? { totalMs } : {}),
  };
}

/** A prompt's size in tokens, estimated from its characters before any server counted it (about 4 a token). */
export const estimateTokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4));

/** How long the first token may take for a prompt of `promptTokens`: the base wait plus reading it at the slowest allowed speed. */
export function firstTokenWaitMs(t: LlmTimeouts, promptTokens: number): number {
  return t.firstTokenMs + Math.ceil((Math.max(0, promptTokens) / t.readTokensPerSecond) * 1000);
}

/**
 * A server that does not stream sends the whole reply at once: it may take the first token's wait
 * plus ten stall periods of writing (there is no token to watch in between).
 */
export function wholeReplyWaitMs(t: LlmTimeouts, promptTokens: number): number {
  return firstTokenWaitMs(t, promptTokens) + 10 * t.stallMs;
}

/** Which limit a request ran out of, with what it had got so far. */
export type ProgressTimeout =
  | { kind: 'connect'; waitedMs: number }
  | { kind: 'first_token'; waitedMs: number; promptTokens: number; streaming: boolean }
  | { kind: 'stall'; waitedMs: number; tokens: number }
  | { kind: 'total'; waitedMs: number; tokens: number };

const n = (x: number): string => Math.round(x).toLocaleString('en-US');
const s = (ms: number): string => `${n(ms / 1000)} s`;

/** What happened, in the words a user reads in `status` ("connected, no first token after 600 s for a 2,234-token prompt"). */
export function timeoutMessage(t: ProgressTimeout, baseURL: string): string {
  switch (t.kind) {
    case 'connect':
      return `could not connect to ${baseURL} within ${s(t.waitedMs)}`;
    case 'first_token':
      return t.streaming
        ? `connected, no first token after ${s(t.waitedMs)} for a ${n(t.promptTokens)}-token prompt`
        : `connected, no reply after ${s(t.waitedMs)} for a ${n(t.promptTokens)}-token prompt (the server does not stream)`;
    case 'stall':
      return `the reply stalled after ${n(t.tokens)} tokens (no token for ${s(t.waitedMs)})`;
    case 'total':
      return `the request passed its total cap of ${s(t.waitedMs)} after ${n(t.tokens)} tokens`;
  }
}

/** The setting to raise when a limit strikes a live model. */
export function timeoutFix(t: ProgressTimeout): string {
  const raise = (k: keyof typeof TIMEOUT_SETTINGS) => `${TIMEOUT_SETTINGS[k].config} (or the worker's ${TIMEOUT_SETTINGS[k].env})`;
  switch (t.kind) {
    case 'connect':
      return `check that the server is up; a slow network needs a longer ${raise('connect')}`;
    case 'first_token':
      return `a slow model needs a longer ${raise('first_token')} or a lower ${raise('read_speed')}; \`${replannerCommand('doctor')}\` measures its speed`;
    case 'stall':
      return `a model that pauses mid-reply needs a longer ${raise('stall')}`;
    case 'total':
      return `raise ${raise('total')}, or remove the cap`;
  }
}

/** What an LLM call in flight is doing, as its activity heartbeats it (no history event per token). */
export interface LlmProgress {
  purpose: string;
  state: 'connecting' | 'reading' | 'writing';
  /** The prompt's size (estimated until the server counts it). */
  promptTokens: number;
  /** Tokens of the reply so far (while writing). */
  tokens?: number;
  /** When the call started (epoch ms). */
  since: number;
}

/** What the call does, in words: "connecting…", "reading the prompt (2,234 tokens)…", "writing, 140 tokens" (src/domain/words/pauses.ts names what it is for). */
export function progressLine(p: LlmProgress): string {
  if (p.state === 'connecting') return 'connecting…';
  if (p.state === 'reading') return `reading the prompt (${n(p.promptTokens)} tokens)…`;
  return `writing, ${n(p.tokens ?? 0)} tokens`;
}

/** An LlmProgress from untrusted heartbeat details (another worker's, any version), or undefined. */
export function progressOf(details: unknown): LlmProgress | undefined {
  const llm = (typeof details === 'object' && details !== null ? (details as { llm?: unknown }).llm : undefined) as Partial<LlmProgress> | undefined;
  if (typeof llm !== 'object' || llm === null) return undefined;
  const { purpose, state, promptTokens, tokens, since } = llm;
  if (typeof purpose !== 'string' || !/^[a-z_]{1,40}$/.test(purpose)) return undefined;
  if (state !== 'connecting' && state !== 'reading' && state !== 'writing') return undefined;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
  return {
    purpose,
    state,
    promptTokens: num(promptTokens) ?? 0,
    ...(num(tokens) !== undefined ? { tokens: num(tokens) } : {}),
    since: num(since) ?? 0,
  };
}

// ---------------------------------------------------------------- doctor: do the limits fit this model?

/** A model's measured speed (tokens per second), from one call the size of the run's largest prompt. */
export interface ModelSpeed {
  readTokensPerSecond: number;
  writeTokensPerSecond: number;
}

export interface CallEstimate {
  purpose: string;
  promptTokens: number;
  replyTokens: number;
  /** Expected time to the first token, and of the whole call. */
  firstTokenMs: number;
  totalMs: number;
}

/** The expected time of a call on a model of speed `speed`. */
export function estimateCall(speed: ModelSpeed, purpose: string, promptTokens: number, replyTokens: number): CallEstimate {
  const firstTokenMs = Math.round((promptTokens / Math.max(speed.readTokensPerSecond, READ_SPEED_MIN)) * 1000);
  const writeMs = Math.round((replyTokens / Math.max(speed.writeTokensPerSecond, READ_SPEED_MIN)) * 1000);
  return { purpose, promptTokens, replyTokens, firstTokenMs, totalMs: firstTokenMs + writeMs };
}

/** A limit a call would run out of (with a margin of `margin` × the expected time), and the setting to raise. */
export interface TimeoutMisfit {
  purpose: string;
  limit: 'first_token' | 'stall' | 'total';
  expectedMs: number;
  limitMs: number;
  /** e.g. "llm.firstTokenTimeoutSeconds: 900". */
  raise: string;
}

/**
 * Whether each call's expected time fits the limits with room (`margin` × the expected time: a busy
 * machine is slower than a measured one), the worst call per limit only. The stall limit must hold
 * a few tokens' gap at the measured writing speed.
 */
export function timeoutMisfits(t: LlmTimeouts, speed: ModelSpeed, calls: readonly CallEstimate[], margin = 2): TimeoutMisfit[] {
  const worst = new Map<TimeoutMisfit['limit'], { m: TimeoutMisfit; needMs: number }>();
  const note = (m: TimeoutMisfit, needMs: number) => {
    const prev = worst.get(m.limit);
    if (!prev || needMs > prev.needMs) worst.set(m.limit, { m, needMs });
  };
  const secs = (ms: number) => Math.ceil(ms / 1000);
  for (const c of calls) {
    const need = c.firstTokenMs * margin;
    const allowed = firstTokenWaitMs(t, c.promptTokens);
    if (need > allowed) {
      // The base wait that makes this prompt's wait hold the need (the reading allowance stays).
      const base = need - (allowed - t.firstTokenMs);
      note(
        {
          purpose: c.purpose,
          limit: 'first_token',
          expectedMs: c.firstTokenMs,
          limitMs: allowed,
          raise: `${TIMEOUT_SETTINGS.first_token.config}: ${secs(base)}`,
        },
        base,
      );
    }
    if (t.totalMs !== undefined && c.totalMs * margin > t.totalMs) {
      note(
        {
          purpose: c.purpose,
          limit: 'total',
          expectedMs: c.totalMs,
          limitMs: t.totalMs,
          raise: `${TIMEOUT_SETTINGS.total.config}: ${secs(c.totalMs * margin)}`,
        },
        c.totalMs * margin,
      );
    }
  }
  const gapMs = (1000 / Math.max(speed.writeTokensPerSecond, READ_SPEED_MIN)) * 5 * margin;
  if (gapMs > t.stallMs) {
    note(
      { purpose: '*', limit: 'stall', expectedMs: gapMs / margin, limitMs: t.stallMs, raise: `${TIMEOUT_SETTINGS.stall.config}: ${secs(gapMs)}` },
      gapMs,
    );
  }
  return [...worst.values()].map((w) => w.m);
}
