// Issue 12, worker lifecycle policy: queue naming, liveness, restart, idle exit.
import { createHash } from 'node:crypto';
import {
  mayLeaveQueue,
  chooseTaskQueue,
  decideLiveness,
  formatDuration,
  normaliseEndpoint,
  parseIdleExit,
  restartReason,
  shouldIdleExit,
  taskQueueFor,
} from '../../../src/domain/worker-lifecycle';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('issue 12 routing: a task queue per endpoint + model, never per key', () => {
  it('the same endpoint spelled differently routes to the same queue', () => {
    expect(normaliseEndpoint('HTTP://LocalHost:80/v1/')).toBe('http://localhost/v1');
    expect(normaliseEndpoint(' https://api.openai.com/v1 ')).toBe('https://api.openai.com/v1');
    expect(normaliseEndpoint('http://127.0.0.1:4010/v1')).toBe('http://127.0.0.1:4010/v1');
    expect(taskQueueFor('http://localhost/v1/', 'm', sha)).toBe(taskQueueFor('http://LOCALHOST:80/v1', 'm', sha));
  });

  it('another endpoint or another model is another queue; the name is replanner-<10 hex>', () => {
    const a = taskQueueFor('http://127.0.0.1:4010/v1', 'gpt-4o-mini', sha);
    expect(a).toMatch(/^replanner-[0-9a-f]{10}$/);
    expect(taskQueueFor('http://127.0.0.1:4011/v1', 'gpt-4o-mini', sha)).not.toBe(a);
    expect(taskQueueFor('http://127.0.0.1:4010/v1', 'gpt-4o', sha)).not.toBe(a);
  });

  it('an explicit REPLANNER_TASK_QUEUE wins; a blank one does not count', () => {
    expect(chooseTaskQueue('mine', 'http://x/v1', 'm', sha)).toBe('mine');
    expect(chooseTaskQueue('  ', 'http://x/v1', 'm', sha)).toBe(taskQueueFor('http://x/v1', 'm', sha));
    expect(chooseTaskQueue(undefined, 'http://x/v1', 'm', sha)).toBe(taskQueueFor('http://x/v1', 'm', sha));
  });
});

describe('issue 12 liveness: a dead poller does not count', () => {
  const now = 1_000_000_000;
  it('the recorded worker counts when its pid runs our worker, whatever the server lists', () => {
    expect(decideLiveness({ record: { pid: 42 }, recordedAlive: true, pollers: [], nowMs: now })).toEqual({ alive: true, by: 'recorded', pid: 42 });
  });

  it('a killed recorded worker does not count, even while the server still lists its fresh poll', () => {
    const pollers = [{ identity: '42@host', lastAccessMs: now - 1000 }];
    expect(decideLiveness({ record: { pid: 42 }, recordedAlive: false, pollers, nowMs: now })).toEqual({ alive: false, stalePid: 42 });
  });

  it('another worker (started by hand) counts only when it polled recently', () => {
    const fresh = [{ identity: '7@other', lastAccessMs: now - 30_000 }];
    const stale = [{ identity: '7@other', lastAccessMs: now - 200_000 }];
    const unknown = [{ identity: '7@other' }];
    expect(decideLiveness({ recordedAlive: false, pollers: fresh, nowMs: now })).toEqual({ alive: true, by: 'poller', identity: '7@other' });
    expect(decideLiveness({ recordedAlive: false, pollers: stale, nowMs: now })).toEqual({ alive: false });
    expect(decideLiveness({ recordedAlive: false, pollers: unknown, nowMs: now })).toEqual({ alive: false });
    expect(decideLiveness({ record: { pid: 42 }, recordedAlive: false, pollers: fresh, nowMs: now }).alive).toBe(true);
  });

  it('pid 4 is not pid 42: identities are matched up to the @', () => {
    const pollers = [{ identity: '42@host', lastAccessMs: now }];
    expect(decideLiveness({ record: { pid: 4 }, recordedAlive: false, pollers, nowMs: now }).alive).toBe(true);
  });
});

describe('issue 12 restart: the caller key, endpoint or model differs from the auto-started worker', () => {
  const running = { endpoint: 'http://127.0.0.1:4010/v1', model: 'm', keySha256: sha('k1') };
  it('same settings: no restart; a different key hash: restart, saying why without the key', () => {
    expect(restartReason(running, { ...running, endpoint: 'http://127.0.0.1:4010/v1/' })).toBeUndefined();
    const why = restartReason(running, { ...running, keySha256: sha('k2') });
    expect(why).toBe('your OPENAI_API_KEY differs from the one it was started with');
    expect(why).not.toContain('k2');
  });
  it('under an explicit queue, another endpoint or model restarts too', () => {
    expect(restartReason(running, { ...running, endpoint: 'http://127.0.0.1:5000/v1' })).toContain('endpoint');
    expect(restartReason(running, { ...running, model: 'other' })).toContain('REPLANNER_MODEL other');
  });
});

describe('issue 12 idle exit', () => {
  it('REPLANNER_WORKER_IDLE_EXIT: durations, off, and errors that say what to write', () => {
    expect(parseIdleExit(undefined, 900_000)).toBe(900_000);
    expect(parseIdleExit('', 0)).toBe(0);
    expect(parseIdleExit('15m', 0)).toBe(900_000);
    expect(parseIdleExit('90', 0)).toBe(90_000);
    expect(parseIdleExit('2s', 0)).toBe(2000);
    expect(parseIdleExit('1h', 0)).toBe(3_600_000);
    expect(parseIdleExit('off', 900_000)).toBe(0);
    expect(parseIdleExit('never', 900_000)).toBe(0);
    expect(parseIdleExit('soon', 0)).toEqual({ error: expect.stringContaining('like 15m, 90s or 1h') });
    expect(parseIdleExit('10ms', 0)).toEqual({ error: expect.stringContaining('at least 1s') });
  });

  it('busy while an activity or an activation is in flight; idle long enough: exit; 0 never exits', () => {
    const base = { inFlightActivities: 0, inFlightActivations: 0, lastWorkMs: 0, idleMs: 60_000 };
    expect(shouldIdleExit({ ...base, nowMs: 59_999 })).toBe(false);
    expect(shouldIdleExit({ ...base, nowMs: 60_000 })).toBe(true);
    expect(shouldIdleExit({ ...base, nowMs: 600_000, inFlightActivities: 1 })).toBe(false);
    expect(shouldIdleExit({ ...base, nowMs: 600_000, inFlightActivations: 1 })).toBe(false);
    expect(shouldIdleExit({ ...base, nowMs: 600_000, idleMs: 0 })).toBe(false);
  });

  it('issue 23 an idle worker leaves its queue only when no workflow on it is open; unknown counts as open', () => {
    expect(mayLeaveQueue(0)).toBe(true);
    expect(mayLeaveQueue(1)).toBe(false);
    expect(mayLeaveQueue(undefined)).toBe(false);
  });

  it('durations read like a person wrote them', () => {
    expect(formatDuration(15 * 60_000)).toBe('15m');
    expect(formatDuration(3000)).toBe('3s');
    expect(formatDuration(90_000)).toBe('1m 30s');
    expect(formatDuration(3_900_000)).toBe('1h 5m');
  });
});

describe('issue 12 liveness of pollers on this host', () => {
  it('a poller of this host whose process exited does not count, however fresh its last poll', () => {
    const now = 5_000_000;
    const gone = [{ identity: '99@here', lastAccessMs: now - 500, localAlive: false }];
    const running = [{ identity: '98@here', lastAccessMs: now - 500, localAlive: true }];
    expect(decideLiveness({ recordedAlive: false, pollers: gone, nowMs: now })).toEqual({ alive: false });
    expect(decideLiveness({ recordedAlive: false, pollers: running, nowMs: now })).toEqual({ alive: true, by: 'poller', identity: '98@here' });
  });
});
