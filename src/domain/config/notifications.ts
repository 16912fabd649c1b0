// The GitHub / GitLab settings: the `notifications` section of the config (the issue or merge
// request a run posts to) and the CLI's --github / --gitlab flags that fill it. Tokens are the
// worker's (GITHUB_TOKEN / GITLAB_TOKEN), never part of a run's config.
import { z } from 'zod';
import { lazySchema } from '../lazy-schema';
import { section } from './fields';

/** `owner/repo`: GitHub's own rules for the two names. */
export const GITHUB_REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
/** `group[/subgroup…]/project`, or a numeric project id. */
export const GITLAB_PROJECT = /^(?:\d+|[A-Za-z0-9_.][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+)$/;
const MAX_ISSUE_NUMBER = 2_147_483_647;

/**
 * `--github owner/repo#123` (issue or pull request: GitHub numbers both alike; a pull request's
 * comments are issue comments) → the config's `notifications.github`.
 */
export function parseGithubFlag(text: string): { ok: true; value: { repo: string; issue: number } } | { ok: false; reason: string } {
  const m = /^([^#\s]+)#(\d+)$/.exec(text.trim());
  const usage = '--github needs owner/repo#NUMBER (an issue or pull request), e.g. octo/app#12';
  if (!m) return { ok: false, reason: `${usage} (got "${text}")` };
  const n = Number(m[2]);
  if (!GITHUB_REPO.test(m[1]!)) return { ok: false, reason: `${usage}: "${m[1]}" is not owner/repo` };
  if (n < 1 || n > MAX_ISSUE_NUMBER) return { ok: false, reason: `${usage}: ${m[2]} is not an issue number` };
  return { ok: true, value: { repo: m[1]!, issue: n } };
}

/** `--gitlab group/project!45` (merge request) or `group/project#12` (issue) → `notifications.gitlab`. */
export function parseGitlabFlag(
  text: string,
): { ok: true; value: { project: string; issue: number } | { project: string; merge_request: number } } | { ok: false; reason: string } {
  const m = /^([^#!\s]+)([#!])(\d+)$/.exec(text.trim());
  const usage = '--gitlab needs group/project!NUMBER (a merge request) or group/project#NUMBER (an issue)';
  if (!m) return { ok: false, reason: `${usage} (got "${text}")` };
  const n = Number(m[3]);
  if (!GITLAB_PROJECT.test(m[1]!)) return { ok: false, reason: `${usage}: "${m[1]}" is not group/project` };
  if (n < 1 || n > MAX_ISSUE_NUMBER) return { ok: false, reason: `${usage}: ${m[3]} is not a number GitLab uses` };
  return { ok: true, value: m[2] === '!' ? { project: m[1]!, merge_request: n } : { project: m[1]!, issue: n } };
}

// Tested with .test(), not zod's .regex(): zod resets a pattern's lastIndex, and the workflow
// sandbox freezes shared modules' objects (src/workflows/preload.ts).
export const HTTP_URL = /^https?:\/\/[^\s/]+/;
/** The issue or merge request the run posts to (tokens are the worker's: GITHUB_TOKEN / GITLAB_TOKEN). */
const issueNumber = () =>
  z
    .number({ error: 'must be a whole number ≥ 1' })
    .int({ error: 'must be a whole number ≥ 1' })
    .min(1, { error: 'must be a whole number ≥ 1' })
    .max(MAX_ISSUE_NUMBER, { error: `must be at most ${MAX_ISSUE_NUMBER}` })
    .optional();
const oneOf = (a: string, b: string) => (v: Record<string, unknown>, ctx: z.core.$RefinementCtx) => {
  const given = [a, b].filter((k) => v[k] !== undefined);
  if (given.length !== 1) {
    ctx.addIssue({ code: 'custom', path: [], message: given.length ? `give ${a} or ${b}, not both` : `needs ${a}: N or ${b}: N`, input: undefined });
  }
};
export const NotificationsConfigSchema = lazySchema(() =>
  section({
    github: z
      .strictObject(
        {
          repo: z.string({ error: 'must be "owner/name"' }).refine((v) => GITHUB_REPO.test(v), { error: 'must be "owner/name"' }),
          issue: issueNumber(),
          pull: issueNumber(),
        },
        { error: 'must be a mapping { repo, issue | pull }' },
      )
      .superRefine(oneOf('issue', 'pull'))
      .optional(),
    gitlab: z
      .strictObject(
        {
          project: z
            .string({ error: 'must be "group/project" or a project id' })
            .refine((v) => GITLAB_PROJECT.test(v), { error: 'must be "group/project" or a project id' }),
          issue: issueNumber(),
          merge_request: issueNumber(),
          url: z
            .string({ error: 'must be an http(s) URL' })
            .max(2000)
            .refine((v) => HTTP_URL.test(v), { error: 'must be an http(s) URL, e.g. https://gitlab.example.com' })
            .optional(),
        },
        { error: 'must be a mapping { project, issue | merge_request, url? }' },
      )
      .superRefine(oneOf('issue', 'merge_request'))
      .optional(),
  }),
);

/** The config's notifications section, as parsed. */
export type NotificationsConfig = z.output<typeof NotificationsConfigSchema>;
