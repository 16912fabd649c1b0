// O2: an LLM outage or a rejected key pauses the run instead of failing it. The pure rules:
// which failures are LLM trouble (and how src/llm/errors.ts classifies the client's errors), the
// probe backoff, which pauses a prober may go through, and the run's pause transitions.
import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import {
  gateKinds,
  LLM_ACCESS_REJECTED,
  LLM_UNAVAILABLE,
  llmTroubleOf,
  mayProbe,
  PROBE_MAX_MS,
  probeDelayMs,
  shortError,
} from '../../../src/domain/run/llm-outage';
import {
  applyLlmTrouble,
  displayStatus,
  endUnprobedOutage,
  isPaused,
  pauseKinds,
  pauseRun,
  resumeRun,
  type PauseApplied,
} from '../../../src/domain/run/pause';
import { cancelRun } from '../../../src/domain/run/phases';
import { inspectionMemo, MEMO_STATUS, statusView } from '../../../src/domain/run/views';
import { initialRunState, type Applied, type RunState } from '../../../src/domain/run/state';
import { classifyLlmError, LLM_REJECTED, LLM_RETRYABLE } from '../../../src/llm/errors';
import { LlmTroubleSchema, parsePayload, PauseGateSchema } from '../../../src/workflows/messages';

const run = () => initialRunState({ runId: 'r1', instruction: 'do it', workspace: '/ws' });
const ok = (r: Applied | PauseApplied): RunState => {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r.state;
};
const T1 = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';
const ctx = { purpose: 'decompose', baseURL: 'http://llm.example/v1' };
const apiError = (status: number, headers: Record<string, string> = {}) =>
  APIError.generate(status, { error: { message: `scripted ${status}` } }, undefined, new Headers(headers));

describe('O2 classification of LLM client errors', () => {
  it.each([408, 409, 429, 500, 502, 503])('O2 HTTP %i: the LLM is unavailable (Temporal retries a blip), no "will retry"', (status) => {
    const f = classifyLlmError(apiError(status), ctx);
    expect(f.type).toBe(LLM_UNAVAILABLE);
    expect(f.nonRetryable).toBe(false);
    expect(f.message).toContain(`HTTP ${status}`);
    expect(f.message).not.toMatch(/will retry/i);
    expect(llmTroubleOf(f.type ?? undefined)).toBe('unavailable');
  });

  it('O2 429 with retry-after: the next quick retry waits that long', () => {
    expect(classifyLlmError(apiError(429, { 'retry-after': '2' }), ctx).nextRetryDelay).toBe(2000);
  });

  it('O2 connection refused and a timeout: the LLM is unavailable', () => {
    const refused = classifyLlmError(
      new APIConnectionError({ message: 'Connection error.', cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }),
      ctx,
    );
    expect(refused.type).toBe(LLM_UNAVAILABLE);
    expect(refused.message).toContain('ECONNREFUSED');
    expect(refused.message).not.toMatch(/will retry/i);
    expect(classifyLlmError(new APIConnectionTimeoutError(), ctx).type).toBe(LLM_UNAVAILABLE);
  });

  it('O2 401 and 403: access rejected, not retried, the fix named (the key, restart the worker, resume)', () => {
    for (const status of [401, 403]) {
      const f = classifyLlmError(apiError(status), ctx);
      expect(f.type).toBe(LLM_ACCESS_REJECTED);
      expect(f.nonRetryable).toBe(true);
      expect(f.message).toContain('OPENAI_API_KEY rejected by http://llm.example/v1');
      expect(f.message).toContain('restart the worker');
      expect(f.message).toContain('npx replanner resume <runId>');
      expect(llmTroubleOf(f.type ?? undefined)).toBe('rejected');
    }
  });

  it('O2 404: access rejected, naming OPENAI_BASE_URL and REPLANNER_MODEL', () => {
    const f = classifyLlmError(apiError(404), ctx);
    expect(f.type).toBe(LLM_ACCESS_REJECTED);
    expect(f.message).toContain('check OPENAI_BASE_URL and REPLANNER_MODEL');
  });

  it('O2 other 4xx stay a real rejection of that request; anything unknown is retried but is no LLM trouble', () => {
    const bad = classifyLlmError(apiError(400), ctx);
    expect(bad.type).toBe(LLM_REJECTED);
    expect(bad.nonRetryable).toBe(true);
    expect(llmTroubleOf(bad.type ?? undefined)).toBeUndefined();
    const odd = classifyLlmError(new TypeError('boom'), ctx);
    expect(odd.type).toBe(LLM_RETRYABLE);
    expect(llmTroubleOf(odd.type ?? undefined)).toBeUndefined();
    const kept = ApplicationFailure.create({ type: 'LlmBadReply', message: 'x' });
    expect(classifyLlmError(kept, ctx)).toBe(kept);
    expect(llmTroubleOf('LlmBadReply')).toBeUndefined();
  });
});

describe('O2 probing policy', () => {
  it('O2 probes back off from 5 s doubling, capped at 60 s', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(probeDelayMs)).toEqual([5000, 10000, 20000, 40000, 60000, 60000, 60000]);
    expect(probeDelayMs(0)).toBe(5000);
    expect(probeDelayMs(Number.NaN)).toBe(5000);
    expect(probeDelayMs(1e9)).toBe(PROBE_MAX_MS);
  });

  it("O2 a prober goes through the outage pause only, never the user's or a rejection", () => {
    expect(mayProbe([])).toBe(true);
    expect(mayProbe(['llm_outage'])).toBe(true);
    expect(mayProbe(['user', 'llm_outage'])).toBe(false);
    expect(mayProbe(['llm_rejected'])).toBe(false);
  });

  it("O2 pauseGate: an older message without kinds is the user's pause; kinds are deduplicated; unpaused has none", () => {
    expect(gateKinds({ paused: true })).toEqual(['user']);
    expect(gateKinds({ paused: true, kinds: [] })).toEqual(['user']);
    expect(gateKinds({ paused: true, kinds: ['llm_outage', 'llm_outage'] })).toEqual(['llm_outage']);
    expect(gateKinds({ paused: false, kinds: ['user'] })).toEqual([]);
    expect(parsePayload(PauseGateSchema, { paused: true }).ok).toBe(true);
    expect(parsePayload(PauseGateSchema, { paused: true, kinds: ['user', 'llm_outage'] }).ok).toBe(true);
    expect(parsePayload(PauseGateSchema, { paused: true, kinds: ['admin'] }).ok).toBe(false);
  });

  it('O2 the llmTrouble payload is strict', () => {
    expect(parsePayload(LlmTroubleSchema, { trouble: 'unavailable', error: 'x' }).ok).toBe(true);
    expect(parsePayload(LlmTroubleSchema, { trouble: 'recovered' }).ok).toBe(true);
    expect(parsePayload(LlmTroubleSchema, { trouble: 'budget' }).ok).toBe(false);
    expect(parsePayload(LlmTroubleSchema, { trouble: 'rejected', admin: true }).ok).toBe(false);
    expect(parsePayload(LlmTroubleSchema, { trouble: 'rejected', error: 'x'.repeat(5000) }).ok).toBe(false);
  });

  it('O2 a pause reason carries one short line of the error', () => {
    expect(shortError('a\n  b')).toBe('a b');
    expect(shortError('x'.repeat(400))).toHaveLength(300);
  });
});

describe("O2 the run's LLM pauses", () => {
  const outage = (s: RunState, at = T1) => ok(applyLlmTrouble(s, { trouble: 'unavailable', error: 'LLM unavailable: connect ECONNREFUSED' }, at));

  it('O2 an outage pauses the run: PAUSED, reason "LLM unavailable since <time>: <error>", the backoff named', () => {
    const s = outage(run());
    expect(isPaused(s)).toBe(true);
    expect(displayStatus(s)).toBe('PAUSED');
    expect(s.llmPause).toMatchObject({ kind: 'llm_outage', by: 'llm', since: T1 });
    expect(s.llmPause?.reason).toMatch(/^LLM unavailable since 2026-01-01T00:00:00.000Z: LLM unavailable: connect ECONNREFUSED; retrying by itself/);
    expect(s.llmPause?.reason).toContain('every 60 s');
    expect(statusView(s)).toMatchObject({ status: 'PAUSED', pause: { kind: 'llm_outage' }, pauses: [{ kind: 'llm_outage' }] });
    expect(pauseKinds(s)).toEqual(['llm_outage']);
  });

  it('O2 more reports of the same outage keep its since; recovery ends it', () => {
    const s = outage(outage(run()), T2);
    expect(s.llmPause?.since).toBe(T1);
    const back = ok(applyLlmTrouble(s, { trouble: 'recovered' }, T2));
    expect(isPaused(back)).toBe(false);
    expect(back).toEqual(run());
  });

  it("O2 the LLM coming back never ends the user's pause: a user pause during an outage stays until resume", () => {
    const both = ok(pauseRun(outage(run()), { reason: 'lunch', at: T2 }));
    expect(pauseKinds(both)).toEqual(['user', 'llm_outage']);
    expect(statusView(both).pauses?.map((p) => p.kind)).toEqual(['user', 'llm_outage']);
    expect(statusView(both).pause?.kind).toBe('user');
    const back = ok(applyLlmTrouble(both, { trouble: 'recovered' }, T2));
    expect(displayStatus(back)).toBe('PAUSED');
    expect(pauseKinds(back)).toEqual(['user']);
    expect(back.pause).toEqual(both.pause);
    const resumed = ok(resumeRun(back));
    expect(isPaused(resumed)).toBe(false);
  });

  it("O2 a rejected key pauses with the fix named (this run's resume command); recovery does not end it, resume does", () => {
    const s = ok(
      applyLlmTrouble(
        run(),
        {
          trouble: 'rejected',
          error:
            'OPENAI_API_KEY rejected by http://x/v1 (HTTP 401): set the right key, restart the worker with it, then `npx replanner resume <runId>`',
        },
        T1,
      ),
    );
    expect(s.llmPause).toMatchObject({ kind: 'llm_rejected', by: 'llm', since: T1 });
    expect(s.llmPause?.reason).toContain('OPENAI_API_KEY rejected');
    expect(s.llmPause?.reason).toContain('npx replanner resume r1');
    expect(ok(applyLlmTrouble(s, { trouble: 'recovered' }, T2))).toBe(s);
    expect(ok(applyLlmTrouble(s, { trouble: 'unavailable', error: 'x' }, T2))).toBe(s);
    const resumed = ok(resumeRun(s));
    expect(isPaused(resumed)).toBe(false);
    expect(ok(resumeRun(resumed))).toBe(resumed);
  });

  it('O2 a rejection during an outage replaces the outage (only resume ends it)', () => {
    const s = ok(applyLlmTrouble(outage(run()), { trouble: 'rejected', error: 'HTTP 401' }, T2));
    expect(s.llmPause).toMatchObject({ kind: 'llm_rejected', since: T2 });
  });

  it('O2 resume by the user also ends an outage pause (calls try again; a failing one pauses again)', () => {
    const r = resumeRun(outage(run()));
    expect(r.ok && r.changed).toBe(true);
    expect(isPaused(ok(r))).toBe(false);
  });

  it("O2 between phases an outage nobody probes any more ends; the user's pause and a rejection stay", () => {
    const both = ok(pauseRun(outage(run()), { at: T2 }));
    expect(pauseKinds(endUnprobedOutage(both))).toEqual(['user']);
    const rejected = ok(applyLlmTrouble(run(), { trouble: 'rejected', error: 'HTTP 401' }, T1));
    expect(endUnprobedOutage(rejected)).toBe(rejected);
    expect(endUnprobedOutage(run())).toEqual(run());
  });

  it('O2 a finished run refuses LLM trouble; a finished run never shows PAUSED', () => {
    expect(applyLlmTrouble(cancelRun(run()), { trouble: 'unavailable' }, T1)).toEqual({ ok: false, reason: 'the run already ended: CANCELLED' });
    const ended = cancelRun(outage(run()));
    expect(displayStatus(ended)).toBe('CANCELLED');
    expect(pauseKinds(ended)).toEqual([]);
    expect(statusView(ended).pauses).toBeUndefined();
  });

  it('O2/O5 the inspection memo shows PAUSED with each reason', () => {
    const memo = inspectionMemo(ok(pauseRun(outage(run()), { at: T2 })))[MEMO_STATUS] as ReturnType<typeof statusView>;
    expect(memo.status).toBe('PAUSED');
    expect(memo.pauses?.map((p) => [p.kind, p.since])).toEqual([
      ['user', T2],
      ['llm_outage', T1],
    ]);
  });
});
