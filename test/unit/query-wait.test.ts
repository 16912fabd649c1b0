// A CLI read with a bounded wait (src/client/query-wait.ts): a call given up on is kept until it
// settles, so the connection is closed after it (a client retry on a closed channel throws from its
// timer: "Channel has been shut down", seen in CI).
import { abandonedCallsSettled, withTimeout } from '../../src/client/query-wait';

const later = <T>(ms: number, v: T) => new Promise<T>((r) => setTimeout(() => r(v), ms));

describe('withTimeout and the calls it gives up on', () => {
  it('a call that answers in time is returned and not kept', async () => {
    expect(await withTimeout(later(5, 'yes'), 1000)).toBe('yes');
    expect(abandonedCallsSettled()).toBeUndefined();
  });

  it('a call that does not answer in time gives undefined and is kept until it settles, failed or not', async () => {
    const slow = later(80, 'late');
    const failing = later(60, 0).then(() => Promise.reject(new Error('unavailable')));
    expect(await withTimeout(slow, 10)).toBeUndefined();
    expect(await withTimeout(failing, 10)).toBeUndefined();
    const settled = abandonedCallsSettled();
    expect(settled).toBeInstanceOf(Promise);
    await settled;
    expect(abandonedCallsSettled()).toBeUndefined();
  });
});
