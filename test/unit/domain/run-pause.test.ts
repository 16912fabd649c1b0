// O1: pause and resume as pure transitions of the run's state; what `status` and the search
// attribute show (displayStatus); the payload schemas of the pause/resume messages (S2).
import { cancelRun, completeRun, failRun } from '../../../src/domain/run/phases';
import { displayStatus, isPaused, pauseRun, resumeRun, type PauseApplied, MAX_PAUSE_REASON_CHARS } from '../../../src/domain/run/pause';
import { initialRunState, type RunState } from '../../../src/domain/run/state';
import { statusView } from '../../../src/domain/run/views';
import { parsePayload, PauseInputSchema, ResumeInputSchema } from '../../../src/workflows/messages';

const run = () => initialRunState({ runId: 'r1', instruction: 'do it', workspace: '/ws' });
const ok = (r: PauseApplied): { state: RunState; changed: boolean } => {
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r;
};

describe('O1 pause/resume transitions', () => {
  it('O1 pausing a running run records the user, the reason and since when; status shows PAUSED', () => {
    const r = ok(pauseRun(run(), { reason: ' lunch ', at: '2026-01-01T00:00:00.000Z' }));
    expect(r.changed).toBe(true);
    expect(r.state.pause).toEqual({ kind: 'user', by: 'user', reason: 'lunch', since: '2026-01-01T00:00:00.000Z' });
    expect(r.state.status).toBe('RUNNING');
    expect(isPaused(r.state)).toBe(true);
    expect(displayStatus(r.state)).toBe('PAUSED');
    expect(statusView(r.state)).toMatchObject({ status: 'PAUSED', pause: { by: 'user', reason: 'lunch', since: '2026-01-01T00:00:00.000Z' } });
  });

  it('O1 a pause without a reason has none; a long reason is cut to the limit', () => {
    expect(ok(pauseRun(run(), { at: 't' })).state.pause).toEqual({ kind: 'user', by: 'user', since: 't' });
    const long = ok(pauseRun(run(), { reason: 'x'.repeat(MAX_PAUSE_REASON_CHARS + 50), at: 't' }));
    expect(long.state.pause?.reason).toHaveLength(MAX_PAUSE_REASON_CHARS);
  });

  it('O1 pausing a paused run is acknowledged and keeps the first pause', () => {
    const first = ok(pauseRun(run(), { reason: 'a', at: 't1' })).state;
    const again = ok(pauseRun(first, { reason: 'b', at: 't2' }));
    expect(again.changed).toBe(false);
    expect(again.state).toBe(first);
  });

  it('O1 resuming a paused run clears the pause and shows RUNNING; everything else unchanged', () => {
    const paused = ok(pauseRun(run(), { at: 't' })).state;
    const resumed = ok(resumeRun(paused));
    expect(resumed.changed).toBe(true);
    expect(resumed.state.pause).toBeUndefined();
    expect(displayStatus(resumed.state)).toBe('RUNNING');
    expect(statusView(resumed.state).pause).toBeUndefined();
    expect(resumed.state).toEqual(run());
  });

  it('O1 resuming a running run is acknowledged and changes nothing', () => {
    const s = run();
    const r = ok(resumeRun(s));
    expect(r.changed).toBe(false);
    expect(r.state).toBe(s);
  });

  it.each([
    ['DONE', completeRun],
    ['FAILED', (s: RunState) => failRun(s, 'boom')],
    ['CANCELLED', cancelRun],
  ])('O1 a finished run (%s) refuses both with its final status', (status, end) => {
    const ended = end(run());
    expect(pauseRun(ended, { at: 't' })).toEqual({ ok: false, reason: `the run already ended: ${status}` });
    expect(resumeRun(ended)).toEqual({ ok: false, reason: `the run already ended: ${status}` });
  });

  it('O1 a run that ends while paused shows its final status, not PAUSED', () => {
    const paused = ok(pauseRun(run(), { at: 't' })).state;
    const cancelled = cancelRun(paused);
    expect(displayStatus(cancelled)).toBe('CANCELLED');
    expect(statusView(cancelled).pause).toBeUndefined();
  });
});

describe('O1 pause/resume payloads (S2)', () => {
  it.each([[undefined], [null], [{}], [{ reason: 'why' }]])('O1 pause accepts %p', (p) => {
    expect(parsePayload(PauseInputSchema, p).ok).toBe(true);
  });
  it.each([['"x"'], [42], [{ reason: 7 }], [{ reason: 'x'.repeat(MAX_PAUSE_REASON_CHARS + 1) }], [{ reason: 'a', admin: true }]])(
    'O1 pause refuses %p',
    (p) => {
      expect(parsePayload(PauseInputSchema, p)).toMatchObject({ ok: false, reason: expect.stringContaining('invalid payload') });
    },
  );
  it('O1 resume accepts nothing, null or {} and refuses anything else', () => {
    for (const p of [undefined, null, {}]) expect(parsePayload(ResumeInputSchema, p).ok).toBe(true);
    for (const p of [{ force: true }, 'now', 1]) expect(parsePayload(ResumeInputSchema, p).ok).toBe(false);
  });
});
