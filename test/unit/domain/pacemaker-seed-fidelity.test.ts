// Issue 10 seed fidelity (as docs/requirements.md words them): P4 an unknown profile stays unknown with
// base 8 from the planner's reply to the loop limit; P2 the judge's confidence becomes mood.
import { calculateMaxLoops, DEFAULT_PACEMAKER_CONFIG, measureVitals, NEUTRAL_MOOD, toTaskProfile } from '../../../src/domain/pacemaker';
import { JudgeResultSchema } from '../../../src/domain/replan/judge-outcome';
import { TASK_PROFILES } from '../../../src/domain/types';
import { DecompositionSchema, GoalSchema, toTaskSpecs } from '../../../src/llm/schemas';

const planned = (profile: unknown) => ({
  id: 't',
  title: 'a task',
  acceptance_criteria: ['done'],
  ...(profile === undefined ? {} : { profile }),
});
const neutral = { mood: 0.6, focus: 0.6, stamina: 0.6 };
const noComplexity = { files: 0, historyTurns: 0, toolRuns: 0, toolErrors: 0 };

describe('P4 unknown task profile', () => {
  it('P4 the profile enum has an explicit UNKNOWN', () => {
    expect(TASK_PROFILES).toContain('UNKNOWN');
  });

  it.each<[string, unknown]>([
    ['a profile the planner made up', 'ASTROLOGY'],
    ['an explicit UNKNOWN', 'UNKNOWN'],
    ['no profile at all', undefined],
    ['null', null],
    ['a number', 7],
    ['a near miss', 'CODE ANALYSIS'],
  ])('P4 %s becomes UNKNOWN and gets base 8 end to end (planner reply → task → limit)', (_n, profile) => {
    const [spec] = toTaskSpecs(DecompositionSchema.parse({ tasks: [planned(profile)] }).tasks);
    expect(spec!.profile).toBe('UNKNOWN');
    const limit = calculateMaxLoops({ profile: spec!.profile, vitals: neutral, complexity: noComplexity, config: DEFAULT_PACEMAKER_CONFIG });
    expect(limit).toMatchObject({ profile: 'UNKNOWN', base_loops: 8, max_loops: 8 });
    expect(limit.reasoning).toContain('UNKNOWN (unknown profile), base limit 8 loops');
  });

  it('P4 a known profile is kept (case and blanks ignored), never coerced', () => {
    const [spec] = toTaskSpecs(DecompositionSchema.parse({ tasks: [planned(' debugging ')] }).tasks);
    expect(spec!.profile).toBe('DEBUGGING');
    expect(
      calculateMaxLoops({ profile: spec!.profile, vitals: neutral, complexity: noComplexity, config: DEFAULT_PACEMAKER_CONFIG }).base_loops,
    ).toBe(14);
    for (const p of TASK_PROFILES) expect(toTaskProfile(p)).toBe(p);
  });

  it("P4 the goal's profile follows the same rule", () => {
    const goal = { main_objective: 'x', success_criteria: ['y'] };
    expect(GoalSchema.parse({ ...goal, task_profile: 'WIZARDRY' }).task_profile).toBe('UNKNOWN');
    expect(GoalSchema.parse(goal).task_profile).toBe('UNKNOWN');
    expect(GoalSchema.parse({ ...goal, task_profile: 'RESEARCH' }).task_profile).toBe('RESEARCH');
  });
});

describe('P2 judge confidence → mood', () => {
  const vitalsFrom = (replies: unknown[]) => {
    const confidences = replies.map((r) => JudgeResultSchema.parse(r).confidence).filter((c): c is number => c !== null);
    return measureVitals({ judgeConfidences: confidences, recentActions: [], recentErrors: [], attemptsUsed: 1, maxAttempts: 10 });
  };

  it('P2 the judge reply must carry confidence (0..1 or null)', () => {
    expect(JudgeResultSchema.safeParse({ success: true }).success).toBe(false);
    expect(JudgeResultSchema.parse({ success: true, confidence: null }).confidence).toBeNull();
    expect(JudgeResultSchema.parse({ success: true, confidence: 0.3 }).confidence).toBe(0.3);
  });

  it('P2 mood is the mean of the judge confidences', () => {
    expect(vitalsFrom([{ success: false, confidence: 0.2 }]).mood).toBeCloseTo(0.2);
    expect(
      vitalsFrom([
        { success: false, confidence: 0.2 },
        { success: false, confidence: 0.6 },
      ]).mood,
    ).toBeCloseTo(0.4);
  });

  it('P2 a judge that cannot tell (null) leaves mood neutral', () => {
    expect(vitalsFrom([{ success: false, confidence: null }]).mood).toBe(NEUTRAL_MOOD);
  });

  it('P2 low judge confidence lowers the loop limit through the vitals factor', () => {
    const low = vitalsFrom([{ success: false, confidence: 0 }]);
    const high = vitalsFrom([{ success: false, confidence: 1 }]);
    const limit = (mood: number) =>
      calculateMaxLoops({
        profile: 'CODE_ANALYSIS',
        vitals: { mood, focus: 0.3, stamina: 0.3 },
        complexity: noComplexity,
        config: DEFAULT_PACEMAKER_CONFIG,
      });
    // score 0.4·0 + 0.4·0.3 + 0.2·0.3 = 0.18 → factor 0.7; with mood 1: 0.58 → 1.0.
    expect(limit(low.mood)).toMatchObject({ vitals_factor: 0.7, max_loops: 8 });
    expect(limit(high.mood)).toMatchObject({ vitals_factor: 1, max_loops: 12 });
  });
});
