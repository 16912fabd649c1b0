// G3 / G4 on GitLab through @gitbeaker/rest: the run's merge request. Found by its source branch
// (every state), opened as a draft (GitLab reads a draft from the title's "Draft:" prefix), edited
// in place (a draft keeps its prefix), made ready by dropping the prefix. Its pipelines and
// reviewers: ./gitlab-feedback.ts. Host: the project's `url`, else GITLAB_URL, else gitlab.com.
// Each request is sent once (notifications/gitlab-requester.ts): the retry table decides.
import { MergeRequests } from '@gitbeaker/rest';
import { draftTitle, withoutDraftPrefix } from '../../domain/pull-request/titles';
import type { PullRequestRef } from '../../domain/pull-request/types';
import { gitlabOptions, gitlabProblemOf, gitlabProjectId, gitlabThread } from '../notifications/gitlab';
import { refusalMessages, type PullRequestApi } from './api';
import { gitlabStateOf, readGitlabFeedback } from './gitlab-feedback';

interface GitlabMr {
  iid: number;
  web_url: string;
  state: string;
  draft?: boolean;
  work_in_progress?: boolean;
  title: string;
  sha?: string | null;
  source_branch?: string;
}

const refOf = (m: GitlabMr, created: boolean): PullRequestRef => ({
  number: m.iid,
  url: m.web_url,
  state: gitlabStateOf(m.state),
  draft: m.draft === true || m.work_in_progress === true,
  ...(m.sha ? { headSha: m.sha } : {}),
  created,
});

export function gitlabMergeRequests(projectPath: string, token: string, host: string): PullRequestApi {
  const options = gitlabOptions(token, host);
  const mrs = new MergeRequests(options);
  const project = gitlabProjectId(projectPath);
  const thread = (n: number) => gitlabThread({ service: 'gitlab', project: projectPath, kind: 'merge_request', number: n, url: host }, token, host);
  const show = async (n: number) => (await mrs.show(project, n)) as unknown as GitlabMr;
  return {
    async find(head) {
      // No `state`: GitLab lists every state (opened, closed, merged, locked).
      const all = (await mrs.all({ projectId: project, sourceBranch: head, perPage: 100, maxPages: 1 })) as unknown as GitlabMr[];
      const newest = all.filter((m) => m.source_branch === undefined || m.source_branch === head).sort((a, b) => b.iid - a.iid)[0];
      return newest ? refOf(newest, false) : undefined;
    },
    async create(input) {
      const title = input.draft === false ? input.title : draftTitle(input.title);
      const m = (await mrs.create(project, input.head, input.base, title, { description: input.body })) as unknown as GitlabMr;
      return refOf(m, true);
    },
    async update(n, change) {
      let title = change.title;
      if (title !== undefined) {
        // A new title must keep a draft a draft until the run marks it ready.
        const draft = refOf(await show(n), false).draft;
        title = draft ? draftTitle(title) : title;
      }
      await mrs.edit(project, n, { ...(title !== undefined ? { title } : {}), ...(change.body !== undefined ? { description: change.body } : {}) });
    },
    async markReady(n) {
      const m = await show(n);
      if (!refOf(m, false).draft) return refOf(m, false);
      const edited = (await mrs.edit(project, n, { title: withoutDraftPrefix(m.title) })) as unknown as GitlabMr;
      return refOf(edited, false);
    },
    read: (input, deadline) => readGitlabFeedback({ project, token, host }, input, thread(input.number), deadline),
    thread,
    problemOf: gitlabProblemOf,
    // GitLab opens a merge request whose source has no commits beyond its target; not one whose source it does not have.
    unopenable(err) {
      const p = gitlabProblemOf(err);
      return p.status !== undefined && p.status < 500 && refusalMessages(p.body).some((m) => /source_branch/.test(m) && /does not exist/.test(m))
        ? 'no-branch'
        : undefined;
    },
    exists: (err) => {
      const p = gitlabProblemOf(err);
      return p.status === 409 && refusalMessages(p.body).some((m) => /already exists/i.test(m));
    },
  };
}
