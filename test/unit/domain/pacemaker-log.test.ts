import { DEFAULT_PACEMAKER_CONFIG, calculateMaxLoops, pacemakerLogLine } from '../../../src/domain/pacemaker';

describe('pacemakerLogLine (P8)', () => {
  const result = calculateMaxLoops({
    profile: 'CODE_ANALYSIS',
    vitals: { mood: 0.75, focus: 0.8, stamina: 0.65 },
    complexity: { files: 8, historyTurns: 12, toolRuns: 0, toolErrors: 0 },
    config: DEFAULT_PACEMAKER_CONFIG,
  });

  it('P8 start line: limit and reasoning on one line', () => {
    const line = pacemakerLogLine('start', { taskId: 'T1', result });
    expect(line.startsWith('[DUCK_PACEMAKER] start task=T1: profile=CODE_ANALYSIS limit=14 (base 12 × vitals 1.0 × complexity 1.24;')).toBe(true);
    expect(line).toContain('12 × 1.0 × 1.24 = 14.88 → 14');
    expect(line).not.toContain('\n');
  });

  it('P8 start line marks a fallback', () => {
    const fb = calculateMaxLoops({ profile: 'X', vitals: { mood: Number.NaN, focus: 1, stamina: 1 }, config: DEFAULT_PACEMAKER_CONFIG });
    expect(pacemakerLogLine('start', { result: fb })).toMatch(/^\[DUCK_PACEMAKER\] start: profile=X limit=15 \[fallback\] \(base 8\) \| /);
  });

  it('P8 intervention line when consulting and on the decision', () => {
    expect(pacemakerLogLine('intervention', { taskId: 'T1', kind: 'confused_thinking', iteration: 8, maxLoops: 14 })).toBe(
      '[DUCK_PACEMAKER] intervention task=T1 loop 8/14: confused_thinking → consulting the user',
    );
    expect(
      pacemakerLogLine('intervention', {
        taskId: 'T1',
        kind: 'too_many_attempts',
        iteration: 14,
        maxLoops: 14,
        effect: 'continue_raised',
        newMaxLoops: 19,
      }),
    ).toBe('[DUCK_PACEMAKER] intervention decision task=T1 loop 14/14: too_many_attempts → continue_raised (limit 14→19)');
    expect(pacemakerLogLine('intervention', { kind: 'no_progress', iteration: 8, maxLoops: 14, effect: 'stop', timedOut: true })).toBe(
      '[DUCK_PACEMAKER] intervention decision loop 8/14: no_progress → stop [no answer, timeout]',
    );
  });

  it('P8 end line: loops used / limit, interventions, outcome', () => {
    expect(
      pacemakerLogLine('end', {
        taskId: 'T1',
        loopsUsed: 11,
        maxLoops: 14,
        interventions: [{ kind: 'confused_thinking', effect: 'guidance' }],
        outcome: 'success after user guidance',
      }),
    ).toBe('[DUCK_PACEMAKER] end task=T1: loops 11/14 used, interventions 1 (confused_thinking→guidance), outcome: success after user guidance');
    expect(pacemakerLogLine('end', { loopsUsed: 3, maxLoops: 8, interventions: [], outcome: 'success' })).toBe(
      '[DUCK_PACEMAKER] end: loops 3/8 used, interventions 0, outcome: success',
    );
  });

  it('P8 per loop: progress stall detected', () => {
    expect(pacemakerLogLine('stall', { taskId: 'T1', iteration: 8, maxLoops: 14, noProgressIterations: 2 })).toBe(
      '[DUCK_PACEMAKER] loop 8/14 task=T1: progress stall detected (no progress for 2 loops)',
    );
    expect(pacemakerLogLine('stall', { iteration: 3, maxLoops: 8, noProgressIterations: 1 })).toBe(
      '[DUCK_PACEMAKER] loop 3/8: progress stall detected (no progress for 1 loop)',
    );
  });

  it('P8 per loop: vitals change with before → after of mood, focus, stamina, score and factor', () => {
    // Seed 002's example: focus 0.80 → 0.45. Score 0.4·0.75 + 0.4·0.8 + 0.2·0.65 = 0.75 → 0.61; factor stays 1.0.
    expect(
      pacemakerLogLine('vitals', {
        taskId: 'T1',
        iteration: 8,
        before: { mood: 0.75, focus: 0.8, stamina: 0.65 },
        after: { mood: 0.75, focus: 0.45, stamina: 0.6 },
      }),
    ).toBe(
      '[DUCK_PACEMAKER] loop 8 task=T1: vitals change: mood 0.75→0.75, focus 0.80→0.45 (down), stamina 0.65→0.60 (down), score 0.75→0.60 (down), factor 1.0→1.0',
    );
    // A fall below 0.4 cuts the factor to 0.7; a rise above 0.8 raises it to 1.2.
    expect(
      pacemakerLogLine('vitals', { iteration: 2, before: { mood: 0.5, focus: 0.5, stamina: 0.5 }, after: { mood: 0.2, focus: 0.3, stamina: 0.4 } }),
    ).toMatch(/score 0\.50→0\.28 \(down\), factor 1\.0→0\.7 \(down\)$/);
    expect(
      pacemakerLogLine('vitals', { iteration: 2, before: { mood: 0.5, focus: 0.5, stamina: 0.5 }, after: { mood: 0.9, focus: 1, stamina: 0.9 } }),
    ).toMatch(/factor 1\.0→1\.2 \(up\)$/);
  });
});
