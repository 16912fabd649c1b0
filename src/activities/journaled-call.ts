// One journaled LLM call asking for JSON, the shape every planning activity shares: the reply is
// journaled as it arrives (a retry checks the journaled reply instead of asking again), then
// checked; the activity heartbeats the call's progress meanwhile.
import type { z } from 'zod';
import { Context } from '@temporalio/activity';
import type { Purpose } from '../llm/purposes';
import type { Prompt } from '../llm/prompts/common';
import { TOP_RUNG, type LlmRung, type LlmRungReport } from '../domain/llm-form';
import { validateStructured, type LlmGateway, type StructuredResult } from '../llm/gateway';
import type { TokenUsage } from '../domain/usage';
import { heartbeating } from './heartbeat';
import { journaledReply, journalRoot } from './journal';
import { readInstruction } from './run-files';
import type { LlmCallSettings } from '../domain/llm-form';

export interface RunRef {
  runId: string;
  workspace: string;
  /** The whole instruction, or with `instructionFile` its head only (prompts read the file: readInstruction). */
  instruction: string;
  instructionFile?: string;
  /** The structured-output fallback ladder's rung and request timeout, set by the calling workflow's call gate (src/workflows/call-gate.ts). */
  llm?: LlmCallSettings;
  /** Workspace affinity: the host that owns the workspace (absent: the run has none; journal.ts journalRoot). */
  host?: string;
  /** Made again after its host was lost: the lost call's activity id, whose journal answers this call (journal.ts). */
  journalOf?: string;
}

export interface ActivitySettings {
  /** This worker's own state directory: the journal of planning calls that ran away from the workspace's host. */
  journalDir: string;
}

export interface WithUsage<T> extends LlmRungReport {
  value: T;
  usage: TokenUsage;
}

/** What the journal keeps of a JSON call: the reply's text and usage, and how it was asked for. */
interface JournaledText {
  raw: string;
  usage: TokenUsage;
  rung?: LlmRung;
  stream?: false;
  cut?: number;
}

const journalOf = (r: StructuredResult<string>): JournaledText => ({
  raw: r.raw,
  usage: r.usage,
  ...(r.rung !== TOP_RUNG ? { rung: r.rung } : {}),
  ...(r.stream === false ? { stream: false as const } : {}),
  ...(r.cut ? { cut: r.cut } : {}),
});

/** A result names its rung when it is below the top, and says when the server does not stream (the workflow keeps both for later calls). */
export const reportOf = (r: Pick<JournaledText, 'rung' | 'stream'>): LlmRungReport => ({
  ...(r.rung && r.rung !== TOP_RUNG ? { llmRung: r.rung } : {}),
  ...(r.stream === false ? { llmStream: false as const } : {}),
});

export function journaledCalls(llm: LlmGateway, settings: ActivitySettings) {
  const signal = () => Context.current().cancellationSignal;
  const journalRootOf = (run: RunRef) => journalRoot(run, Context.current().info.taskQueue, settings.journalDir);
  /**
   * One journaled LLM call asking for JSON: the reply is journaled as it arrives, then `check`ed
   * (a retry checks the journaled reply); the activity heartbeats the call's progress meanwhile.
   */
  const journaledText = <S extends z.ZodType, T>(
    run: RunRef,
    purpose: Purpose,
    schema: S,
    prompt: (instruction: string) => Prompt | Promise<Prompt>,
    check: (r: JournaledText) => T,
  ): Promise<T> =>
    heartbeating((hb) =>
      journaledReply<T, JournaledText>(
        journalRootOf(run),
        async (record) => {
          const asked = { ...(await prompt(await readInstruction(run))) };
          const r = await llm.text({
            purpose,
            schema,
            ...asked,
            signal: signal(),
            llm: run.llm,
            onProgress: (p) => hb.update({ llm: p }),
            // The rung and streaming are known only with the result: recorded with what the reply says so far.
            onReply: (reply) => record({ raw: reply.content, usage: reply.usage, ...(reply.streamed ? {} : { stream: false as const }) }),
          });
          return journalOf(r);
        },
        check,
        run.journalOf,
      ),
    );
  /** One journaled, schema-validated LLM call: the shape every planning activity shares. */
  const ask = <S extends z.ZodType>(
    run: RunRef,
    purpose: Purpose,
    schema: S,
    prompt: (instruction: string) => Prompt | Promise<Prompt>,
  ): Promise<WithUsage<z.output<S>>> =>
    journaledText(run, purpose, schema, prompt, (r) => ({
      value: validateStructured(purpose, schema, r.raw, r.cut),
      usage: r.usage,
      ...reportOf(r),
    }));

  return { journaledText, ask };
}
