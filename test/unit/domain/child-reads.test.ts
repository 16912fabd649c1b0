// S2 (issue 21): what the run does with what it read from its own children.
import { consultationChange, freshTroubleObservation } from '../../../src/domain/run/child-reads';
import { applyConsultation } from '../../../src/domain/run/questions';
import { initialRunState, type PendingConsultation, type RunState } from '../../../src/domain/run/state';
import { setDecomposition } from '../../../src/domain/run/plan';
import { TaskState } from '../../../src/domain/types';
import { coalescedPerKey } from '../../../src/workflows/run/coalesce';
import { pendingConsultation } from '../../support/consultations';

const consultation = pendingConsultation;

function running(): RunState {
  const s = setDecomposition(initialRunState({ runId: 'r', instruction: 'x', workspace: '/ws' }), [
    { id: 'a', title: 'a', description: 'a', acceptanceCriteria: [], dependencies: [], scopePaths: [], profile: 'FILE_OPERATION' },
  ]);
  return { ...s, phase: 'execution', tasks: s.tasks.map((t) => ({ ...t, state: TaskState.RUNNING })) };
}

function applied(s: RunState, taskId: string, seen: PendingConsultation | null): RunState {
  const change = consultationChange(s, taskId, seen);
  if (!change) return s;
  const r = applyConsultation(s, change);
  if (!r.ok) throw new Error(r.reason);
  return r.state;
}

describe('S2 P7 the run shows the consultation it read from the task', () => {
  it('S2 P7 what the task shows opens, replaces or closes the run’s; the same read again changes nothing', () => {
    let s = running();
    expect(consultationChange(s, 'a', null)).toBeUndefined();
    s = applied(s, 'a', consultation('a', 1));
    expect(s.consultations.map((c) => c.id)).toEqual(['a-c1']);
    expect(consultationChange(s, 'a', consultation('a', 1))).toBeUndefined();
    s = applied(s, 'a', consultation('a', 2));
    expect(s.consultations.map((c) => c.id)).toEqual(['a-c2']);
    s = applied(s, 'a', null);
    expect(s.consultations).toEqual([]);
    expect(consultationChange(s, 'a', null)).toBeUndefined();
  });

  it('S2 P7 a stale read (an older consultation than the run already showed) is refused by applyConsultation', () => {
    const s = applied(applied(running(), 'a', consultation('a', 2)), 'a', null);
    const stale = consultationChange(s, 'a', consultation('a', 1))!;
    expect(applyConsultation(s, stale)).toEqual({ ok: false, reason: 'consultation a-c1 is not newer than a-c2' });
  });
});

describe('S2 O2 each LLM trouble observation of a workflow is taken once', () => {
  it('S2 O2 only an observation numbered after the last one taken from that workflow is fresh', () => {
    expect(freshTroubleObservation(undefined, 1)).toBe(true);
    expect(freshTroubleObservation(1, 2)).toBe(true);
    // The recovery already taken (2), read again by a forged poke during a later outage: not fresh.
    expect(freshTroubleObservation(2, 2)).toBe(false);
    // A read that finished after a newer one.
    expect(freshTroubleObservation(3, 2)).toBe(false);
    expect(freshTroubleObservation(undefined, Number.NaN)).toBe(false);
  });
});

describe('S2 reads of one child never overlap', () => {
  it('S2 pokes during a read ask for exactly one more read after it; other keys read at once', async () => {
    const log: string[] = [];
    const gates: (() => void)[] = [];
    const poke = coalescedPerKey(
      (k: string) =>
        new Promise<void>((resolve) => {
          log.push(`start ${k}`);
          gates.push(() => {
            log.push(`end ${k}`);
            resolve();
          });
        }),
      () => undefined,
    );
    poke('a');
    poke('a');
    poke('a');
    poke('b');
    expect(log).toEqual(['start a', 'start b']);
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start a', 'start b', 'end a', 'start a']);
    gates.shift()!();
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start a', 'start b', 'end a', 'start a', 'end b', 'end a']);
  });
});
