// O (operating) / issue 11: the worker's operator knobs. Activity slots default to what a run at the
// largest maxParallelTasks needs (each task's LLM call plus each finished task's replan decision
// beside it); both knobs take whole numbers and say what is wrong otherwise.
import { BOUNDS } from '../../src/domain/config';
import { ACTIVITY_SLOTS } from '../../src/worker';
import { workerOverridesFromEnv } from '../../src/worker-main';

describe('worker settings from the environment', () => {
  it('defaults: nothing overridden; the activity slots fit a run at the largest parallelism', () => {
    expect(workerOverridesFromEnv({})).toEqual({});
    expect(ACTIVITY_SLOTS).toBeGreaterThanOrEqual(2 * BOUNDS.parallelTasks);
  });

  it('REPLANNER_MAX_CONCURRENT_ACTIVITIES and REPLANNER_MAX_CACHED_WORKFLOWS override the SDK settings', () => {
    expect(workerOverridesFromEnv({ REPLANNER_MAX_CONCURRENT_ACTIVITIES: '8', REPLANNER_MAX_CACHED_WORKFLOWS: '0' })).toEqual({
      maxConcurrentActivityTaskExecutions: 8,
      maxCachedWorkflows: 0,
    });
  });

  it.each([
    ['REPLANNER_MAX_CONCURRENT_ACTIVITIES', '0', /REPLANNER_MAX_CONCURRENT_ACTIVITIES must be a whole number ≥ 1, got "0"/],
    ['REPLANNER_MAX_CONCURRENT_ACTIVITIES', '2.5', /≥ 1, got "2.5"/],
    ['REPLANNER_MAX_CACHED_WORKFLOWS', '-1', /REPLANNER_MAX_CACHED_WORKFLOWS must be a whole number ≥ 0, got "-1"/],
    ['REPLANNER_MAX_CACHED_WORKFLOWS', 'many', /≥ 0, got "many"/],
  ])('%s=%s is refused with what to set', (name, value, message) => {
    expect(() => workerOverridesFromEnv({ [name]: value })).toThrow(message);
  });
});
