// M1: the fallback ladder's rung in workflow state. Each workflow of a run keeps the rung it knows
// in its RunOptions (`options.llm`, which its children get in their input); the gate hands it to
// every LLM activity (the `llm` field of the activity's input), and an activity whose call went
// down the ladder says so in its result (`llmRung`). Children report theirs with their result, so
// the run (whose state carries it across continue-as-new) learns what any of its workflows learned.
// Nothing is recorded per call: history grows by a few bytes in inputs, and only when the rung changes.
import { lowerRung, noStreamOf, rungOf, type LlmRung, type LlmRungReport } from '../domain/llm-form';
import type { RunOptions } from './options';

export interface LlmForm {
  /** A rung a call or a child reported (anything else is ignored). */
  learned(report: unknown): void;
  /** Wraps activity stubs: each call's input gets the current settings, each result is learned from. */
  gated<T extends object>(activities: T): T;
}

/** The form of the workflow whose options are `options`; `onLower` runs when its rung goes down or streaming stops. */
export function llmFormOn(options: RunOptions, onLower?: (rung: LlmRung | undefined, stream: false | undefined) => void): LlmForm {
  const learned = (report: unknown) => {
    const r = report as LlmRungReport | null | undefined;
    const rung = rungOf(r?.llmRung);
    const low = lowerRung(options.llm?.rung, rung);
    // M1: a server that refused streaming is not asked to stream again (the same memory as the rung).
    const noStream = noStreamOf(r?.llmStream) === false && options.llm?.stream !== false;
    if (!noStream && (low === undefined || low === options.llm?.rung)) return;
    options.llm = {
      ...options.llm,
      ...(low !== undefined ? { rung: low } : {}),
      ...(noStream || options.llm?.stream === false ? { stream: false as const } : {}),
    };
    onLower?.(low, options.llm.stream);
  };
  return {
    learned,
    gated<T extends object>(activities: T): T {
      return new Proxy(activities, {
        get(target, name, receiver) {
          const f: unknown = Reflect.get(target, name, receiver);
          if (typeof f !== 'function') return f;
          return (input: unknown, ...rest: unknown[]) => {
            // Read at the call (after the pause gate): a rung learned meanwhile applies at once.
            const arg = options.llm && typeof input === 'object' && input !== null ? { ...input, llm: options.llm } : input;
            return (f as (...a: unknown[]) => Promise<unknown>)(arg, ...rest).then((r) => {
              learned(r);
              return r;
            });
          };
        },
      });
    },
  };
}

/** What a workflow's result says about the ladder (nothing while at the top). */
export function rungReport(options: RunOptions): LlmRungReport {
  return { ...(options.llm?.rung ? { llmRung: options.llm.rung } : {}), ...(options.llm?.stream === false ? { llmStream: false as const } : {}) };
}
