// S3: what a run may be started with, checked by the CLI before anything starts (exit 2) and again by
// the workflow (anyone who can reach Temporal can start one). Pure: no Temporal, no I/O.

/**
 * The instruction travels in the run's input and in every LLM activity's input, so it must stay far
 * below Temporal's 2 MB payload limit and keep history small. Longer material belongs in a file in
 * the workspace that the instruction names (the worker reads it with its tools).
 */
export const MAX_INSTRUCTION_CHARS = 64_000;

/** Run ids become workflow ids (`run-<id>`) and directory names. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Undefined when valid, else what is wrong and what to do. */
export function instructionProblem(instruction: unknown): string | undefined {
  if (typeof instruction !== 'string') return 'the instruction must be text';
  if (!instruction.trim()) return 'the instruction is empty: say what the run should achieve';
  if (instruction.length > MAX_INSTRUCTION_CHARS) {
    return (
      `the instruction has ${instruction.length} characters; the limit is ${MAX_INSTRUCTION_CHARS} ` +
      '(it is carried into every LLM call). Put the details in a file in the workspace and name that file in a shorter instruction.'
    );
  }
  return undefined;
}

export function runIdProblem(runId: unknown): string | undefined {
  if (typeof runId !== 'string' || !RUN_ID.test(runId)) {
    return `invalid run id ${JSON.stringify(runId)}: 1-64 characters, letters, digits, '.', '_' or '-', starting with a letter or digit`;
  }
  return undefined;
}

/** A count given on the command line: a whole number in [min, max]. */
export function countProblem(name: string, raw: string, min: number, max: number): string | undefined {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n < min || n > max) {
    return `${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`;
  }
  return undefined;
}
