// G1 / G2: the run's git activities: its branch, a task's commit, the push. Each runs on the
// workspace's host and is safe to repeat after a crash.
import { prepareRunBranch } from './branch';
import { commitRunTask } from './commit';
import { pushRunBranch } from './push';

export function createGitActivities() {
  return { prepareRunBranch, commitRunTask, pushRunBranch };
}
