// The pacemaker's consultation patterns (P7): the four triggers (no progress, lost confidence,
// thinking in circles, too many attempts), what each choice does, each pattern's own four choices
// and its situation text. The one home of the pattern → choices → effect table.
import { DEFAULT_PACEMAKER_CONFIG, type PacemakerConfig } from './config';

/** The four triggers, in their fixed order (patterns 1–4). */
export const INTERVENTION_KINDS = ['no_progress', 'lost_confidence', 'confused_thinking', 'too_many_attempts'] as const;
export type InterventionKind = (typeof INTERVENTION_KINDS)[number];

/**
 * What a choice does:
 * - stop: the task stops (BLOCKED); accept: the current result is accepted as DONE;
 * - guidance: the user's text goes into the next worker request; consult_reference: the same,
 *   naming what the worker must consult; consolidate: the worker first consolidates what is done;
 * - restart: the worker is told to drop its current approach and take a different one;
 * - continue_raised: go on with the loop limit raised by raise_limit_by;
 * - redecompose: the task is re-decomposed (REPLAN); simplify: the same, with a simplified scope.
 */
export const CONSULTATION_EFFECTS = [
  'stop',
  'accept',
  'guidance',
  'consult_reference',
  'consolidate',
  'restart',
  'continue_raised',
  'redecompose',
  'simplify',
] as const;
export type ConsultationEffect = (typeof CONSULTATION_EFFECTS)[number];

/** The effects whose answer must carry the user's text (it is what the worker is told). */
export const TEXT_REQUIRED_EFFECTS: readonly ConsultationEffect[] = ['guidance', 'consult_reference'];

export interface Bilingual {
  ja: string;
  en: string;
}

export interface ConsultationChoice {
  /** 1..4, the number the user types (in the pattern's fixed order). */
  number: 1 | 2 | 3 | 4;
  /** A short name, unique within the pattern, the user may type instead of the number. */
  key: string;
  effect: ConsultationEffect;
  label: Bilingual;
  /** The answer must carry text (guidance, what to consult). */
  needsText: boolean;
}

type ChoiceDef = Omit<ConsultationChoice, 'number' | 'needsText'>;
const c = (key: string, effect: ConsultationEffect, ja: string, en: string): ChoiceDef => ({ key, effect, label: { ja, en } });

/** Each pattern's own four choices, in their fixed order, in Japanese with an English rendering. */
const PATTERN_CHOICES: Readonly<Record<InterventionKind, readonly [ChoiceDef, ChoiceDef, ChoiceDef, ChoiceDef]>> = {
  no_progress: [
    c('stop', 'stop', '作業を中止する', 'Stop the work'),
    c('guidance', 'guidance', '追加の指示や情報を提供する', 'Provide additional instructions or information'),
    c('continue', 'continue_raised', 'このまま作業を継続する', 'Continue the work as it is'),
    c('different_approach', 'restart', '別のアプローチで再開する', 'Restart with a different approach'),
  ],
  lost_confidence: [
    c('requirements', 'guidance', 'より詳細な要件や制約を教える', 'Give more detailed requirements or constraints'),
    c('split', 'redecompose', '問題を分割して段階的に進める', 'Split the problem and proceed step by step'),
    c('consult', 'consult_reference', '別の専門家や資料を参照する', 'Consult another expert or reference material'),
    c('continue', 'continue_raised', '現在のアプローチを続ける', 'Continue with the current approach'),
  ],
  confused_thinking: [
    c('key_requirement', 'guidance', '最も重要な要件を1つ教える', 'Name the single most important requirement'),
    c('reset', 'restart', '作業を一旦リセットして再開する', 'Reset the work and start again'),
    c('consolidate', 'consolidate', '現在までの成果を整理する', 'Consolidate the progress so far'),
    c('other_angle', 'restart', '別の角度からアプローチする', 'Approach it from a different angle'),
  ],
  too_many_attempts: [
    c('accept', 'accept', '現在までの結果で満足する', 'Settle for the results so far'),
    c('analyse_cause', 'guidance', '問題の原因を一緒に分析する', 'Analyse the cause of the problem together'),
    c('simplify', 'simplify', '要求を簡素化して再挑戦する', 'Simplify the request and try again'),
    c('different_approach', 'restart', '完全に別のアプローチを試す', 'Try a completely different approach'),
  ],
};

/** The four choices of one pattern; "continue" states how far the limit is raised. */
export function choicesFor(kind: InterventionKind, config: Pick<PacemakerConfig, 'raise_limit_by'> = DEFAULT_PACEMAKER_CONFIG): ConsultationChoice[] {
  return PATTERN_CHOICES[kind].map((d, i) => {
    const label =
      d.effect === 'continue_raised'
        ? { ja: `${d.label.ja}（上限を +${config.raise_limit_by} 回）`, en: `${d.label.en} (up to ${config.raise_limit_by} more attempts)` }
        : { ...d.label };
    return { number: (i + 1) as 1 | 2 | 3 | 4, key: d.key, effect: d.effect, label, needsText: TEXT_REQUIRED_EFFECTS.includes(d.effect) };
  });
}

/**
 * Which choice of the pattern an answer names: its number (1–4, as number or text), its key,
 * or its effect (the first choice with that effect). Case and surrounding blanks are ignored.
 */
export function resolveConsultationChoice(kind: InterventionKind, choice: unknown): ConsultationChoice | undefined {
  const choices = choicesFor(kind);
  if (typeof choice === 'number') return choices.find((x) => x.number === choice);
  if (typeof choice !== 'string') return undefined;
  const t = choice.trim().toLowerCase();
  return choices.find((x) => String(x.number) === t) ?? choices.find((x) => x.key === t) ?? choices.find((x) => x.effect === t);
}

export const CONSULTATION_TITLE: Bilingual = { ja: '🦆 Duck Pacemaker からの相談', en: '🦆 Duck Pacemaker consultation' };

/** The situation text of each pattern, in Japanese with an English rendering. */
export function consultationMessage(kind: InterventionKind, iteration: number): Bilingual {
  switch (kind) {
    case 'no_progress':
      return {
        ja: `AIがタスクの進捗がなく作業を繰り返しています（${iteration}回目）。\n同じような分析や情報収集を何度も行っており、新しい発見がない状況です。`,
        en: `The AI is making no progress on the task and keeps repeating its work (iteration ${iteration}).\nIt keeps doing the same kind of analysis and information gathering without finding anything new.`,
      };
    case 'lost_confidence':
      return {
        ja: 'AIが現在の作業プランに自信を失っています。\n複雑な問題に対して適切な解決策を見つけられずにいる状況です。',
        en: 'The AI has lost confidence in its current plan.\nIt cannot find a suitable solution to a complex problem.',
      };
    case 'confused_thinking':
      return {
        ja: 'AIの思考が一貫性を失い、混乱している状況です。\n複数の解決策を同時に検討して判断がつかない状態になっています。',
        en: "The AI's thinking has lost its consistency and it is confused.\nIt is weighing several solutions at once and cannot decide.",
      };
    case 'too_many_attempts':
      return {
        ja: 'AIが同じタスクで多くの試行を重ねており、効率が低下しています。\nこれ以上続けても良い結果が得られない可能性があります。',
        en: 'The AI has made many attempts on the same task and is becoming less efficient.\nContinuing may not lead to a better result.',
      };
  }
}
