// The client's errors about runs, each with the Temporal error it stands for as its `cause`. The
// CLI's exit code for each is in commands/exit-codes.ts.

/** The run is running but no worker polls its task queue (exit 3 in the CLI); the message says how to start one. */
export class NoWorker extends Error {
  constructor(
    message: string,
    readonly taskQueue: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** No such run (or task) on the server (exit 3 in the CLI). */
export class NotFound extends Error {}

/** The run has already ended: the command has nothing to act on (exit 1). */
export class AlreadyEnded extends Error {}

/** The answer was rejected by the task's validator (nothing pending, unknown choice, no guidance text). */
export class AnswerRejected extends Error {}

/** The run already ended; `status` is its final status. */
export class RunEnded extends Error {
  constructor(
    message: string,
    readonly status: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** `run` found no model answering at OPENAI_BASE_URL (exit 3): nothing was started; the message names the address and the fix. */
export class ModelUnreachable extends Error {}

/** `run` found the model server refusing this shell's key or address (exit 2): nothing was started; the message names the fix. */
export class ModelRefused extends Error {}
