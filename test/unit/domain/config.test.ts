import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRunOptions, ConfigError, DEFAULT_CONFIG, parseConfig } from '../../../src/domain/config';
import { durationMs } from '../../../src/domain/config/run-options';
import { DEFAULT_PACEMAKER_CONFIG } from '../../../src/domain/pacemaker/config';
import { DEFAULT_REFINEMENT_CONFIG } from '../../../src/domain/refinement/config';
import { loadConfig } from '../../../src/client/config-load';

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

const dir = mkdtempSync(join(tmpdir(), 'replanner-config-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('X12 defaults', () => {
  it('X12 seed §12.1 defaults', () => {
    expect(DEFAULT_CONFIG.replanning).toEqual({
      enabled: true,
      on_replan_failure: 'continue',
      llm_decision: {
        min_confidence_threshold: 0.5,
        require_user_confirmation_on_low_confidence: true,
        user_confirmation_threshold: 0.3,
      },
      goal_understanding: {
        max_clarification_requests: 2,
        auto_assume_on_no_response: true,
        auto_assume_timeout_minutes: 30,
      },
      task_decomposition: { max_redecomposition_attempts: 3 },
      action_sequence: { max_regeneration_attempts: 3 },
      execution: { max_action_retries: 3, max_partial_replans: 2 },
      reflection: { max_plan_revisions: 2 },
      global: { max_total_replans: 10, infinite_loop_detection: true, same_trigger_max_count: 2 },
    });
  });

  it('J8 task re-decomposition defaults { enabled: true, maxIterations: 3, timeoutSeconds: 300 }', () => {
    expect(DEFAULT_CONFIG.task_replanning).toEqual({ enabled: true, maxIterations: 3, timeoutSeconds: 300 });
  });

  it('X12 execution defaults; refinement and pacemaker get their own defaults from the one parser', () => {
    expect(DEFAULT_CONFIG.execution).toEqual({ maxParallelTasks: 3, maxTaskIterations: 5, commandTimeoutSeconds: 120 });
    expect(DEFAULT_CONFIG.refinement).toEqual(DEFAULT_REFINEMENT_CONFIG);
    expect(DEFAULT_CONFIG.pacemaker).toEqual(DEFAULT_PACEMAKER_CONFIG);
  });

  it.each([null, undefined, {}])('X12 %p gives the defaults', (raw) => {
    expect(parseConfig(raw)).toEqual(DEFAULT_CONFIG);
  });

  it('X12 a partial section keeps the other defaults of that section', () => {
    const c = parseConfig({ replanning: { execution: { max_partial_replans: 5 } } });
    expect(c.replanning.execution).toEqual({ max_action_retries: 3, max_partial_replans: 5 });
    expect(c.replanning.global.max_total_replans).toBe(10);
  });

  it('X12 S3 refinement and pacemaker sections are parsed and bounded here too, errors naming the key path', () => {
    const c = parseConfig({ refinement: { maxQualityRetries: 4 }, pacemaker: { default_max_loops: 12 } });
    expect(c.refinement.maxRefinementAttempts).toBe(4);
    expect(c.pacemaker.default_max_loops).toBe(12);
    expect(errorOf(() => parseConfig({ refinement: { maxRefinementAttempts: 11 } })).message).toContain('refinement.maxRefinementAttempts');
    expect(errorOf(() => parseConfig({ pacemaker: { consultation_timeout_minutes: 1e9 } })).message).toContain(
      'pacemaker.consultation_timeout_minutes',
    );
    expect(errorOf(() => parseConfig({ pacemaker: { base: { X: 1 } } })).message).toContain('pacemaker.base: unknown key');
  });

  it("X12 the seed's own layout (planning: { replanning: ... }) is accepted", () => {
    const c = parseConfig({ planning: { enabled: true, replanning: { global: { max_total_replans: 4 } } } });
    expect(c.replanning.global.max_total_replans).toBe(4);
  });
});

describe('X12 invalid config names the key', () => {
  it.each<[string, unknown, string]>([
    [
      'confidence threshold out of range',
      { replanning: { llm_decision: { min_confidence_threshold: 1.5 } } },
      'invalid config: replanning.llm_decision.min_confidence_threshold: must be between 0 and 1 (got 1.5)',
    ],
    [
      'negative limit',
      { replanning: { global: { max_total_replans: -1 } } },
      'replanning.global.max_total_replans: must be a whole number ≥ 0 (got -1)',
    ],
    [
      'fractional limit',
      { replanning: { execution: { max_action_retries: 1.5 } } },
      'replanning.execution.max_action_retries: must be a whole number ≥ 0 (got 1.5)',
    ],
    [
      'same_trigger_max_count 0',
      { replanning: { global: { same_trigger_max_count: 0 } } },
      'replanning.global.same_trigger_max_count: must be a whole number ≥ 1 (got 0)',
    ],
    ['boolean as string', { replanning: { enabled: 'yes' } }, 'replanning.enabled: must be true or false (got "yes")'],
    ['bad enum', { replanning: { on_replan_failure: 'explode' } }, 'replanning.on_replan_failure: must be one of continue, abort (got "explode")'],
    ['section not a mapping', { execution: 3 }, 'execution: must be a mapping (key: value) (got 3)'],
    ['maxIterations negative', { task_replanning: { maxIterations: -1 } }, 'task_replanning.maxIterations: must be a whole number ≥ 0 (got -1)'],
    ['timeout zero', { task_replanning: { timeoutSeconds: 0 } }, 'task_replanning.timeoutSeconds: must be a number > 0 (got 0)'],
    ['maxParallelTasks zero', { execution: { maxParallelTasks: 0 } }, 'execution.maxParallelTasks: must be a whole number ≥ 1 (got 0)'],
    [
      'confirmation threshold above the min threshold',
      { replanning: { llm_decision: { user_confirmation_threshold: 0.7 } } },
      'replanning.llm_decision.user_confirmation_threshold: must not exceed replanning.llm_decision.min_confidence_threshold (0.5) (got 0.7)',
    ],
    [
      'seed layout keeps its path',
      { planning: { replanning: { execution: { max_partial_replans: 'two' } } } },
      'planning.replanning.execution.max_partial_replans: must be a whole number ≥ 0 (got "two")',
    ],
  ])('X12 %s', (_n, raw, message) => {
    expect(errorOf(() => parseConfig(raw)).message).toContain(message);
  });

  it.each<[unknown, string]>([
    [{ replanning: { llm_decison: {} } }, 'replanning.llm_decison: unknown key (did you mean "llm_decision"?)'],
    [{ replanning: { global: { max_total_replan: 3 } } }, 'replanning.global.max_total_replan: unknown key (did you mean "max_total_replans"?)'],
    [{ replaning: {} }, 'replaning: unknown key (did you mean "replanning"?)'],
    [{ task_replanning: { maxIteration: 2 } }, 'task_replanning.maxIteration: unknown key (did you mean "maxIterations"?)'],
    [{ completely_unrelated: 1 }, 'completely_unrelated: unknown key'],
  ])('X12 unknown keys are rejected with their path: %p', (raw, message) => {
    expect(errorOf(() => parseConfig(raw)).message).toContain(message);
  });

  it.each<[string, unknown, string]>([
    [
      'command timeout over a day',
      { execution: { commandTimeoutSeconds: 86_401 } },
      'execution.commandTimeoutSeconds: must be at most 86400 (got 86401)',
    ],
    ['planner timeout over a day', { task_replanning: { timeoutSeconds: 1e9 } }, 'task_replanning.timeoutSeconds: must be at most 86400'],
    ['parallelism over 64', { execution: { maxParallelTasks: 65 } }, 'execution.maxParallelTasks: must be at most 64 (got 65)'],
    ['task iterations over 100', { execution: { maxTaskIterations: 101 } }, 'execution.maxTaskIterations: must be at most 100'],
    [
      'a per-type limit over 100',
      { replanning: { execution: { max_action_retries: 1000 } } },
      'replanning.execution.max_action_retries: must be at most 100',
    ],
    ['total replans over 1000', { replanning: { global: { max_total_replans: 1001 } } }, 'replanning.global.max_total_replans: must be at most 1000'],
    ['re-decomposition chain over 20', { task_replanning: { maxIterations: 21 } }, 'task_replanning.maxIterations: must be at most 20'],
    [
      'a human wait over 30 days',
      { replanning: { goal_understanding: { auto_assume_timeout_minutes: 43_201 } } },
      'auto_assume_timeout_minutes: must be at most 43200',
    ],
    ['maxTasks zero', { planning: { maxTasks: 0 } }, 'planning.maxTasks: must be a whole number ≥ 1 (got 0)'],
    ['maxTasks over 200', { planning: { maxTasks: 201 } }, 'planning.maxTasks: must be at most 200 (got 201)'],
    ['maxTasks not whole', { planning: { maxTasks: 2.5 } }, 'planning.maxTasks: must be a whole number ≥ 1 (got 2.5)'],
    ['Infinity', { execution: { commandTimeoutSeconds: Infinity } }, 'execution.commandTimeoutSeconds'],
  ])('S3 bounds: %s is refused, naming the key', (_n, raw, message) => {
    expect(errorOf(() => parseConfig(raw)).message).toContain(message);
  });

  it('S3 the largest allowed values parse (machine waits a day, human waits 30 days)', () => {
    const c = parseConfig({
      planning: { maxTasks: 200 },
      execution: { commandTimeoutSeconds: 86_400, maxParallelTasks: 64 },
      replanning: { goal_understanding: { auto_assume_timeout_minutes: 43_200 } },
    });
    expect(c.planning.maxTasks).toBe(200);
    expect(c.execution.maxParallelTasks).toBe(64);
  });

  it('S3 planning.maxTasks defaults to 30 and sits beside the seed layout planning.replanning', () => {
    expect(DEFAULT_CONFIG.planning).toEqual({ maxTasks: 30 });
    const c = parseConfig({ planning: { enabled: true, maxTasks: 12, replanning: { global: { max_total_replans: 4 } } } });
    expect(c.planning.maxTasks).toBe(12);
    expect(c.replanning.global.max_total_replans).toBe(4);
    expect(errorOf(() => parseConfig({ planning: { maxTask: 3 } })).message).toContain('planning.maxTask: unknown key (did you mean "maxTasks"?)');
  });

  it('X12 every problem is reported, each with its path', () => {
    const e = errorOf(() => parseConfig({ replanning: { enabled: 1, global: { max_total_replans: 'x' } } }));
    expect(e.issues.map((i) => i.path)).toEqual(['replanning.enabled', 'replanning.global.max_total_replans']);
  });

  it('X12 planning.enabled false is refused with a pointer to replanning.enabled', () => {
    expect(errorOf(() => parseConfig({ planning: { enabled: false } })).message).toContain('planning.enabled');
  });
});

describe('X12 loadConfig (YAML file + env overrides)', () => {
  const seedYaml = `planning:
  enabled: true
  replanning:
    enabled: true
    llm_decision:
      min_confidence_threshold: 0.6
      require_user_confirmation_on_low_confidence: true
      user_confirmation_threshold: 0.3
    goal_understanding:
      max_clarification_requests: 1
      auto_assume_on_no_response: true
      auto_assume_timeout_minutes: 10
    task_decomposition:
      max_redecomposition_attempts: 3
    action_sequence:
      max_regeneration_attempts: 3
    execution:
      max_action_retries: 3
      max_partial_replans: 2
    reflection:
      max_plan_revisions: 2
    global:
      max_total_replans: 7
      infinite_loop_detection: true
      same_trigger_max_count: 2
`;

  it('X12 no file and no env → defaults', () => {
    expect(loadConfig({ env: {} })).toEqual(DEFAULT_CONFIG);
  });

  it('X12 the seed §12.1 YAML block loads as written', () => {
    const c = loadConfig({ path: file('seed.yaml', seedYaml), env: {} });
    expect(c.replanning.llm_decision.min_confidence_threshold).toBe(0.6);
    expect(c.replanning.goal_understanding.max_clarification_requests).toBe(1);
    expect(c.replanning.global.max_total_replans).toBe(7);
  });

  it('X12 the file is found through REPLANNER_CONFIG', () => {
    const p = file('env.yaml', 'replanning:\n  global:\n    max_total_replans: 4\n');
    expect(loadConfig({ env: { REPLANNER_CONFIG: p } }).replanning.global.max_total_replans).toBe(4);
  });

  it('X12 the path argument wins over REPLANNER_CONFIG', () => {
    const a = file('a.yaml', 'replanning:\n  global:\n    max_total_replans: 1\n');
    const b = file('b.yaml', 'replanning:\n  global:\n    max_total_replans: 2\n');
    expect(loadConfig({ path: a, env: { REPLANNER_CONFIG: b } }).replanning.global.max_total_replans).toBe(1);
  });

  it('X12 an empty file gives the defaults', () => {
    expect(loadConfig({ path: file('empty.yaml', '# nothing\n'), env: {} })).toEqual(DEFAULT_CONFIG);
  });

  it.each<[string, Record<string, string>, (c: ReturnType<typeof loadConfig>) => unknown, unknown]>([
    ['REPLANNING_ENABLED=false', { REPLANNING_ENABLED: 'false' }, (c) => c.replanning.enabled, false],
    ['REPLANNING_ENABLED=0', { REPLANNING_ENABLED: '0' }, (c) => c.replanning.enabled, false],
    ['REPLANNING_ENABLED=TRUE', { REPLANNING_ENABLED: 'TRUE' }, (c) => c.replanning.enabled, true],
    ['REPLANNING_ENABLED=1', { REPLANNING_ENABLED: '1' }, (c) => c.replanning.enabled, true],
    ['REPLANNING_MIN_CONFIDENCE=0.7', { REPLANNING_MIN_CONFIDENCE: '0.7' }, (c) => c.replanning.llm_decision.min_confidence_threshold, 0.7],
    ['REPLANNING_MIN_CONFIDENCE=1 (boundary)', { REPLANNING_MIN_CONFIDENCE: '1' }, (c) => c.replanning.llm_decision.min_confidence_threshold, 1],
    ['MAX_TOTAL_REPLANS=0', { MAX_TOTAL_REPLANS: '0' }, (c) => c.replanning.global.max_total_replans, 0],
    ['MAX_TOTAL_REPLANS=25', { MAX_TOTAL_REPLANS: '25' }, (c) => c.replanning.global.max_total_replans, 25],
    ['empty values are ignored', { MAX_TOTAL_REPLANS: '', REPLANNING_ENABLED: ' ' }, (c) => c.replanning.global.max_total_replans, 10],
  ])('X12 env override %s', (_n, env, get, expected) => {
    expect(get(loadConfig({ env }))).toBe(expected);
  });

  it('X12 env overrides win over the file (also in the seed layout)', () => {
    const c = loadConfig({ path: file('seed2.yaml', seedYaml), env: { MAX_TOTAL_REPLANS: '3', REPLANNING_ENABLED: 'false' } });
    expect(c.replanning.global.max_total_replans).toBe(3);
    expect(c.replanning.enabled).toBe(false);
    expect(c.replanning.goal_understanding.max_clarification_requests).toBe(1);
  });

  it.each<[Record<string, string>, string]>([
    [{ REPLANNING_ENABLED: 'yes' }, 'REPLANNING_ENABLED'],
    [{ REPLANNING_MIN_CONFIDENCE: '1.5' }, 'REPLANNING_MIN_CONFIDENCE'],
    [{ REPLANNING_MIN_CONFIDENCE: 'high' }, 'REPLANNING_MIN_CONFIDENCE'],
    [{ MAX_TOTAL_REPLANS: '-1' }, 'MAX_TOTAL_REPLANS'],
    [{ MAX_TOTAL_REPLANS: '2.5' }, 'MAX_TOTAL_REPLANS'],
  ])('X12 invalid env %p → ConfigError naming the variable', (env, name) => {
    const e = errorOf(() => loadConfig({ env }));
    expect(e.message).toContain(name);
  });

  it('X12 an env value conflicting with the file is reported with both sources', () => {
    // confirmation threshold 0.3 in the file; min confidence 0.2 from env would fall below it
    const e = errorOf(() => loadConfig({ path: file('seed3.yaml', seedYaml), env: { REPLANNING_MIN_CONFIDENCE: '0.2' } }));
    expect(e.message).toContain('user_confirmation_threshold');
    expect(e.message).toContain('REPLANNING_MIN_CONFIDENCE');
  });

  it('X12 a YAML syntax error names the file and line', () => {
    const p = file('broken.yaml', 'replanning:\n  enabled: true\n  global: [1, 2\n  other: 3\n');
    const e = errorOf(() => loadConfig({ path: p, env: {} }));
    expect(e.message).toContain(p);
    expect(e.message).toMatch(/line \d+/);
  });

  it('X12 a duplicate key is a YAML error with its line', () => {
    const p = file('dup.yaml', 'replanning:\n  enabled: true\n  enabled: false\n');
    expect(errorOf(() => loadConfig({ path: p, env: {} })).message).toMatch(/dup\.yaml:3:\d+ \(line 3\)/);
  });

  it('X12 a schema error in a file names the key and the file', () => {
    const p = file('bad.yaml', 'replanning:\n  llm_decision:\n    min_confidence_threshold: 2\n');
    const e = errorOf(() => loadConfig({ path: p, env: {} }));
    expect(e.message).toContain('replanning.llm_decision.min_confidence_threshold: must be between 0 and 1 (got 2)');
    expect(e.message).toContain(p);
  });

  it('X12 a missing file is a ConfigError naming it', () => {
    const e = errorOf(() => loadConfig({ path: join(dir, 'nope.yaml'), env: {} }));
    expect(e.message).toContain('nope.yaml');
  });
});

describe('S2 S3 run options of a RunWorkflow input (anyone may start a run with any payload)', () => {
  it.each<[unknown]>([
    [undefined],
    [null],
    [{}],
    [{ maxParallelTasks: 64, llmCallTimeout: '3 minutes', continueAsNewAfterEvents: 1 }],
    [{ llmCallTimeout: 86_400_000 }],
  ])('S3 %p is accepted', (raw) => {
    expect(() => checkRunOptions(raw)).not.toThrow();
  });

  it.each<[string, unknown, string]>([
    ['parallelism 10000', { maxParallelTasks: 10_000 }, 'options.maxParallelTasks: must be at most 64 (got 10000)'],
    ['a negative command timeout', { commandTimeoutMs: -1 }, 'options.commandTimeoutMs: must be at least 1 (got -1)'],
    ['a command timeout over a day', { commandTimeoutMs: 86_400_001 }, 'options.commandTimeoutMs: must be at most 86400000'],
    ['an LLM timeout of a week', { llmCallTimeout: '168 hours' }, 'options.llmCallTimeout: must be a duration between 1 ms and 24 hours'],
    ['an unreadable LLM timeout', { llmCallTimeout: 'forever' }, 'options.llmCallTimeout: must be a duration between 1 ms and 24 hours'],
    ['a string where a number belongs', { llmMaxAttempts: '3' }, 'options.llmMaxAttempts'],
    ['an unknown key', { pacemaker: { enabled: false } }, 'options.pacemaker: unknown key'],
    ['not a mapping', 'fast', 'options: must be a mapping'],
  ])('S3 %s is refused, naming the key', (_n, raw, message) => {
    expect(errorOf(() => checkRunOptions(raw)).message).toContain(message);
  });

  it.each<[number | string, number | undefined]>([
    [1500, 1500],
    ['3 minutes', 180_000],
    ['90 s', 90_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['soon', undefined],
  ])('durationMs(%p) → %p', (v, ms) => {
    expect(durationMs(v)).toBe(ms);
  });
});
