// Workspace affinity, O2: the pure rules of a run whose workspace host went away.
import { gateKinds, mayProbe, pauseKindOf } from '../../../src/domain/run/llm-outage';
import { applyLlmTrouble, endUnprobedOutage, isPaused, resumeRun } from '../../../src/domain/run/pause';
import { initialRunState, type RunState } from '../../../src/domain/run/state';
import { statusView } from '../../../src/domain/run/views';
import { LlmTroubleSchema, parsePayload, PauseGateSchema } from '../../../src/workflows/messages';

const run = () => initialRunState({ runId: 'r1', instruction: 'do it', workspace: '/srv/a/ws', host: 'host-a' });
const at = '2026-11-25T07:00:00.000Z';
const applied = (s: RunState, m: Parameters<typeof applyLlmTrouble>[1], when = at): RunState => {
  const r = applyLlmTrouble(s, m, when);
  if (!r.ok) throw new Error(r.reason);
  return r.state;
};

describe('workspace host offline (O2)', () => {
  it('O2 the run records its host; an invalid one is not kept', () => {
    expect(statusView(run()).host).toBe('host-a');
    expect(initialRunState({ runId: 'r', instruction: 'x', workspace: '/w', host: "a b'" }).host).toBeUndefined();
  });

  it('O2 host offline pauses with the host, the time and how to move on; host back ends only that pause', () => {
    const s = applied(run(), { trouble: 'host_offline' });
    expect(isPaused(s)).toBe(true);
    expect(s.llmPause).toEqual({
      kind: 'host_offline',
      by: 'host',
      since: at,
      reason: expect.stringMatching(/^workspace host host-a offline since 2026-11-25T07:00:00.000Z/),
    });
    expect(s.llmPause?.reason).toContain('REPLANNER_HOST=host-a');
    expect(s.llmPause?.reason).toContain('npx replanner cancel r1');
    expect(statusView(s).status).toBe('PAUSED');
    // A second report keeps the first time.
    expect(applied(s, { trouble: 'host_offline' }, '2026-11-25T08:00:00.000Z').llmPause?.since).toBe(at);
    // The LLM recovering does not end a host pause; the host coming back does.
    expect(applied(s, { trouble: 'recovered' }).llmPause?.kind).toBe('host_offline');
    expect(applied(s, { trouble: 'host_back' }).llmPause).toBeUndefined();
    // And the host coming back ends no LLM pause.
    const outage = applied(run(), { trouble: 'unavailable', error: 'ECONNREFUSED' });
    expect(applied(outage, { trouble: 'host_back' }).llmPause?.kind).toBe('llm_outage');
    expect(applied(outage, { trouble: 'host_offline' }).llmPause?.kind).toBe('llm_outage');
  });

  it('O2 a host prober goes through outage pauses only; resume and the safe point between phases end the pause (the next call probes again)', () => {
    expect(pauseKindOf('host_offline')).toBe('host_offline');
    expect(mayProbe(['host_offline'])).toBe(true);
    expect(mayProbe(['host_offline', 'llm_outage'])).toBe(true);
    expect(mayProbe(['host_offline', 'user'])).toBe(false);
    const s = applied(run(), { trouble: 'host_offline' });
    expect(endUnprobedOutage(s).llmPause).toBeUndefined();
    const resumed = resumeRun(s);
    expect(resumed.ok && resumed.state.llmPause).toBeUndefined();
  });

  it('S2 the internal messages take the host kinds and nothing else', () => {
    expect(parsePayload(LlmTroubleSchema, { trouble: 'host_offline' }).ok).toBe(true);
    expect(parsePayload(LlmTroubleSchema, { trouble: 'host_back' }).ok).toBe(true);
    expect(parsePayload(LlmTroubleSchema, { trouble: 'host_gone' }).ok).toBe(false);
    const gate = parsePayload(PauseGateSchema, { paused: true, kinds: ['host_offline'] });
    expect(gate.ok && gateKinds(gate.value)).toEqual(['host_offline']);
  });
});
