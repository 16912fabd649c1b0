// The plan-quality judgement (R1), what "quality OK" means, and the weighted criteria the quality
// prompt is built from, coverage of the user's instruction among them. Pure data and functions.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import type { RefinementConfig } from './config';

/** What the quality judge returns for a plan. */
export interface QualityJudgeResult {
  isAcceptable: boolean;
  issues: string[];
  suggestions: string[];
  /** 0..100; absent when the judge gave none (then the plan is accepted if OK, else rejected). */
  overallScore?: number;
}

/**
 * zod schema of the judge's reply. `issues`/`suggestions` default to []; a `null`
 * score is read as "no score". A score outside 0..100 fails validation (the calling
 * activity retries the LLM call).
 */
export const QualityJudgeResultSchema = lazySchema(() =>
  z
    .object({
      isAcceptable: z.boolean(),
      // Nullable on the wire (OpenAI's strict structured outputs want every field present); null reads as [].
      issues: z.array(z.string()).nullish(),
      suggestions: z.array(z.string()).nullish(),
      overallScore: z.number().min(0).max(100).nullish(),
    })
    .transform((r): QualityJudgeResult => {
      const out: QualityJudgeResult = { isAcceptable: r.isAcceptable, issues: r.issues ?? [], suggestions: r.suggestions ?? [] };
      if (r.overallScore !== null && r.overallScore !== undefined) out.overallScore = r.overallScore;
      return out;
    }),
);

/**
 * "Quality OK" is exactly `isAcceptable === true`. The score, even at or above
 * `qualityThreshold`, never turns an explicit `isAcceptable: false` into acceptance.
 */
export function isQualityOk(result: Pick<QualityJudgeResult, 'isAcceptable'>): boolean {
  return result.isAcceptable === true;
}

/** Prefix of every coverage issue, so missing requirements are easy to find. */
export const COVERAGE_ISSUE_PREFIX = '[Coverage]';

/**
 * The judgement to use when the quality judge itself failed (LLM error after retries,
 * unparseable reply). Fail closed by default: not acceptable and without a score, so
 * makeRefinementDecision rejects it (no score and not OK). `failOpen: true` restores the old pass-through.
 */
export function judgeFailureResult(error: string, config: Pick<RefinementConfig, 'failOpen'>): QualityJudgeResult {
  const issue = `Quality judge failed: ${error}`;
  return config.failOpen
    ? { isAcceptable: true, issues: [`${issue} (failOpen: plan accepted without a quality check)`], suggestions: [] }
    : { isAcceptable: false, issues: [`${issue} (fail-closed: plan rejected)`], suggestions: [] };
}

export type QualityTier = 'CRITICAL' | 'IMPORTANT' | 'NICE_TO_HAVE';

/** Weight of each tier in the overall score. */
export const QUALITY_TIER_WEIGHTS: Readonly<Record<QualityTier, number>> = Object.freeze({
  CRITICAL: 0.7,
  IMPORTANT: 0.2,
  NICE_TO_HAVE: 0.1,
});

export interface QualityCriterion {
  id: string;
  tier: QualityTier;
  name: string;
  question: string;
  checks: readonly string[];
}

/**
 * The quality criteria, in prompt order. `{maxTaskDuration}` in a text is replaced by
 * renderQualityCriteria. Coverage (does the plan cover everything the user asked for?) is the
 * fifth critical criterion.
 */
export const QUALITY_CRITERIA: readonly QualityCriterion[] = Object.freeze([
  {
    id: 'completeness',
    tier: 'CRITICAL',
    name: 'Completeness',
    question: 'Does each task contain everything needed to carry it out?',
    checks: ['Title, description, scope and acceptance criteria are all present'],
  },
  {
    id: 'clarity',
    tier: 'CRITICAL',
    name: 'Clarity',
    question: 'Is each task specific and unambiguous?',
    checks: ['A worker could start without asking what is meant'],
  },
  {
    id: 'acceptance_criteria',
    tier: 'CRITICAL',
    name: 'Acceptance criteria',
    question: 'Are the acceptance criteria concrete and verifiable?',
    checks: ['Each criterion can be checked by a test, a command or an inspection'],
  },
  {
    id: 'dependency_validity',
    tier: 'CRITICAL',
    name: 'Dependency validity',
    question: 'Are the dependencies correct and free of cycles?',
    checks: ['Every dependency names an existing task', 'No task depends on itself, directly or transitively'],
  },
  {
    id: 'coverage',
    tier: 'CRITICAL',
    name: 'Coverage',
    question: 'Do all tasks together fully satisfy the original instruction?',
    checks: [
      'All explicit requirements must be addressed by at least one task',
      'Implicit requirements (e.g., if adding interface, must also use it) must be considered',
      'No aspect of the instruction should be left unaddressed',
      'Example: If instruction says "implement authentication and update orchestrate.ts to use it", there must be tasks for BOTH implementing auth AND updating orchestrate.ts',
      `Report every missing requirement as an issue starting with "${COVERAGE_ISSUE_PREFIX}"`,
    ],
  },
  {
    id: 'context_sufficiency',
    tier: 'IMPORTANT',
    name: 'Context sufficiency',
    question: 'Does each task carry enough context (files, background, constraints)?',
    checks: ['Scope paths and relevant background are given'],
  },
  {
    id: 'granularity',
    tier: 'IMPORTANT',
    name: 'Granularity',
    question: 'Is each task a sensible, self-contained unit of work?',
    checks: ['Neither trivially small nor too large for one worker run'],
  },
  {
    id: 'max_task_duration',
    tier: 'IMPORTANT',
    name: 'Max task duration',
    question: 'Can each task be completed within {maxTaskDuration} hours?',
    checks: ['Split any task that would take longer'],
  },
  {
    id: 'independence',
    tier: 'NICE_TO_HAVE',
    name: 'Independence',
    question: 'Can tasks run in parallel where possible?',
    checks: ['No unnecessary dependencies'],
  },
  {
    id: 'best_practices',
    tier: 'NICE_TO_HAVE',
    name: 'Best practices',
    question: 'Does the plan follow good engineering practice (tests, small changes, no dead code)?',
    checks: ['Testing and verification are part of the plan'],
  },
] satisfies QualityCriterion[]);

const TIER_TITLES: Record<QualityTier, string> = {
  CRITICAL: 'CRITICAL',
  IMPORTANT: 'IMPORTANT',
  NICE_TO_HAVE: 'NICE TO HAVE',
};

/**
 * The criteria as prompt text, grouped by tier with their weights, e.g.
 * "CRITICAL (70%):\n1. **Completeness**: …". `maxTaskDuration` is in hours (default 4).
 */
export function renderQualityCriteria(options: { maxTaskDuration?: number } = {}): string {
  const hours = String(options.maxTaskDuration ?? 4);
  const tiers: QualityTier[] = ['CRITICAL', 'IMPORTANT', 'NICE_TO_HAVE'];
  const blocks: string[] = [];
  for (const tier of tiers) {
    const items = QUALITY_CRITERIA.filter((c) => c.tier === tier);
    const lines = [`${TIER_TITLES[tier]} (${Math.round(QUALITY_TIER_WEIGHTS[tier] * 100)}%):`];
    items.forEach((c, i) => {
      lines.push(`${i + 1}. **${c.name}**: ${c.question.replace('{maxTaskDuration}', hours)}`);
      for (const check of c.checks) lines.push(`   - ${check.replace('{maxTaskDuration}', hours)}`);
    });
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n\n');
}
