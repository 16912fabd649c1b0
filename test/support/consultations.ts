// A pending P7 consultation for domain tests: task `taskId`'s n-th, offering one choice.
import type { PendingConsultation } from '../../src/domain/run/state';

export const pendingConsultation = (taskId: string, n: number): PendingConsultation => ({
  id: `${taskId}-c${n}`,
  taskId,
  kind: 'no_progress',
  iteration: 3,
  maxLoops: 5,
  message: 'stuck',
  trigger: 'same missing requirements',
  choices: [{ number: 1, key: 'stop', effect: 'stop', label: 'stop', ja: '中止', needsText: false }],
  timeoutMinutes: 10,
});
