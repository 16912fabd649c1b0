// O1: an update's effect (pause, resume, an answer) waits for the completions that came with it.
//
// Core (SDK 1.24, its "v1" workflow-task chunking) folds a workflow task that sent no command into
// the next one. A worker starting cold (no cache of the run) then gets an update in the same
// activation as a child's or an activity's end that an earlier worker had already taken in alone,
// and core puts the update first. The run would act on the update before the end (tell an ended
// phase child "resumed"), and a later replay, which takes the end in first, fails on that command
// (test/fixtures/unreplayed/README.md). Letting the completions' continuations run first makes
// the run do the same whichever comes first in the activation.
import { patched } from '@temporalio/workflow';

/** Runs recorded before it applied an update at once; they replay that way. */
const UPDATES_AFTER_COMPLETIONS = 'updates-after-completions';

/**
 * Microtask turns given to the activation's other jobs before an update takes effect. A completion's
 * continuation runs through a few dozen awaits before it reaches its next command or wait; no
 * command or timer is spent here, so a generous count costs nothing in history.
 */
const TURNS = 500;

/**
 * The run's update handlers: `handle` runs once this activation's completions have run their course.
 * Unpatched, `handle` is called as before, not even wrapped (a wrapper's awaits alone would move the
 * update's completion after commands recorded before it).
 */
export function afterCompletions<A extends unknown[], R>(handle: (...a: A) => R): (...a: A) => R | Promise<R> {
  return (...a: A) => (patched(UPDATES_AFTER_COMPLETIONS) ? settled().then(() => handle(...a)) : handle(...a));
}

async function settled(): Promise<void> {
  for (let i = 0; i < TURNS; i++) await Promise.resolve();
}
