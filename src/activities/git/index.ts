// G1 / G2: the run's git activities: its branch, a task's commit, the push. Each runs on the
// workspace's host, heartbeats while git works (an attempt lost with its worker is retried within
// seconds, not after its start-to-close timeout) and is safe to repeat after a crash.
import { heartbeating } from '../heartbeat';
import { prepareRunBranch, type PrepareBranchInput } from './branch';
import { commitRunTask, type CommitTaskInput } from './commit';
import { pushRunBranch, type PushInput } from './push';

export function createGitActivities() {
  return {
    prepareRunBranch: (input: PrepareBranchInput) => heartbeating(() => prepareRunBranch(input)),
    commitRunTask: (input: CommitTaskInput) => heartbeating(() => commitRunTask(input)),
    pushRunBranch: (input: PushInput) => heartbeating(() => pushRunBranch(input)),
  };
}
