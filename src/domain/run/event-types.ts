// V2: what happens in a run, as its event log keeps it (src/domain/run/event-log.ts) and `watch`
// reads it: one body per kind, with the machine names `--json` shows. Pure types.
import type { RunLanguage } from '../language';
import type { Phase, TaskState } from '../types';

export type RunEventBody =
  | { kind: 'phase'; phase: Phase; n: number }
  | { kind: 'task'; taskId: string; title: string; state: TaskState; summary?: string }
  | {
      kind: 'decision';
      /** Absent when the decision is told while its execution phase still runs (the record, with its id, follows as decision_result). */
      replanId?: string;
      phase: Phase;
      /** In execution: the task whose outcome the decision was about. */
      taskId?: string;
      /** A decision about the run's pull request's feedback (no task). */
      about?: 'pull_request_feedback';
      /** What the policy did: none (no replan), replan, clarify, confirm, ignore, override. */
      outcome: string;
      replanType?: string;
      targetPhase?: Phase;
      confidence: number;
      executed: boolean;
      result: string;
      reasoning?: string;
      message?: string;
      /** Why a wanted change did not run (the record's override_reason). */
      overrideReason?: string;
      /** A decision that changes nothing ("plan kept"): shown only with --verbose. */
      noop: boolean;
    }
  | {
      kind: 'decision_result';
      replanId: string;
      taskId?: string;
      about?: 'pull_request_feedback';
      /** What the policy did (absent in events recorded before it was carried). */
      outcome?: string;
      replanType?: string;
      targetPhase?: Phase;
      executed: boolean;
      result: string;
      overrideReason?: string;
      /** The decision changed nothing ("plan kept"): shown only with --verbose. */
      noop: boolean;
    }
  | { kind: 'question'; questionId: string; questionKind: string; phase: Phase; text: string; assumptions: string[] }
  | { kind: 'question_closed'; questionId: string; status: 'answered' | 'timed_out' | 'closed' | 'withdrawn'; answer?: string; why?: string }
  | {
      kind: 'consultation';
      consultationId: string;
      taskId: string;
      consultationKind: string;
      /** The situation, in `language` (older events: English, without `language` and `choices`). */
      message: string;
      /** V9: the run's language (its instruction's), which `message` and the choices' labels are in. */
      language?: RunLanguage;
      /** V9: the numbered choices, labelled in `language`. */
      choices?: { number: number; label: string; needsText: boolean }[];
    }
  | { kind: 'consultation_closed'; consultationId: string; taskId: string }
  | {
      kind: 'notification';
      target: string;
      delivered: number;
      failed: number;
      error?: string;
      /** X10: deliveries wait until then (an outage or a rate limit); refused: how many so far; left: not delivered at the run's end. */
      waitingUntil?: string;
      refused?: number;
      left?: number;
      /** Delivered again after a wait. */
      recovered?: boolean;
    }
  | { kind: 'pause'; pauseKind: string; by: string; reason?: string; since: string }
  | { kind: 'resume'; pauseKind: string }
  | { kind: 'git'; text: string }
  | { kind: 'run_end'; status: string; error?: string };

/** One event: its place in the run's sequence (1, 2, … over the whole run) and workflow time. */
export type RunEvent = RunEventBody & { seq: number; time: string };
