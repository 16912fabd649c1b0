/**
 * The merge requests of the fake GitLab (fake-gitlab.ts), as GitLab's REST API shows them to
 * @gitbeaker/rest: list by `source_branch` (every state unless asked), create (409 when one is open
 * for the source branch; an empty one is allowed, as GitLab allows it; 422 when the branch does not
 * exist), show, edit (a draft is a title starting with "Draft:"), the pipelines of a commit and their
 * jobs, a job's log (plain text), reviewers (and who requested changes), approvals. A test injects
 * pipelines, review states and approvals, and merges or closes a merge request. No jest here.
 */
import type { BranchSource } from './fake-git';
import { itemRoutes, RawReply, type JsonBody, type Route } from './fake-forge';

export interface FakeMr {
  project: string;
  iid: number;
  title: string;
  description: string;
  source_branch: string;
  target_branch: string;
  state: 'opened' | 'closed' | 'merged';
  author: string;
  createdAt: number;
  updatedAt: number;
  /** PUTs of its title or description. */
  edits: number;
  reviewers: { user: string; state: 'unreviewed' | 'reviewed' | 'requested_changes' | 'approved' | 'unapproved' }[];
  approvedBy: string[];
}

export interface FakeJob {
  id: number;
  name: string;
  stage: string;
  status: 'created' | 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'manual';
  allow_failure: boolean;
  failure_reason?: string;
  log: string;
}

export interface FakePipeline {
  id: number;
  project: string;
  sha: string;
  ref: string;
  jobs: FakeJob[];
}

/** What the store needs of its server. */
export interface MrsHost {
  baseURL(): string;
  user(login: string): { id: number; username: string };
  page<T>(items: T[], url: URL): { page: T[]; headers?: Record<string, string> };
  /** Where the repository's branches are read from (a bare git repository, or what the test says). */
  branches(project: string): BranchSource | undefined;
}

/** GitLab reads a draft from the title (case-insensitive): "Draft:", "[Draft]", "(Draft)". */
const isDraft = (title: string) => /^\s*(?:\[draft\]|\(draft\)|draft:|draft\s+-)/i.test(title);
const time = (ms: number) => new Date(ms).toISOString();
const PROJECT = '^/api/v4/projects/([^/]+)';

export class GitlabMrStore {
  readonly mrs: FakeMr[] = [];
  readonly pipelines: FakePipeline[] = [];
  private nextId = 7000;

  constructor(private readonly host: MrsHost) {}

  mr(project: string, iid: number): FakeMr | undefined {
    return this.mrs.find((m) => m.project === project && m.iid === iid);
  }

  sha(m: FakeMr): string | null {
    return this.host.branches(m.project)?.head(m.source_branch) ?? null;
  }

  /** A pipeline for `sha` with these jobs (each job's status, log…); the newest pipeline of a commit is the one that counts. */
  addPipeline(project: string, sha: string, jobs: (Partial<FakeJob> & { name: string })[], ref = 'main'): FakePipeline {
    const p: FakePipeline = {
      id: this.nextId++,
      project,
      sha,
      ref,
      jobs: jobs.map((j) => ({ id: this.nextId++, stage: 'test', status: 'success', allow_failure: false, log: '', ...j })),
    };
    this.pipelines.push(p);
    return p;
  }

  setReviewer(project: string, iid: number, user: string, state: FakeMr['reviewers'][number]['state']): void {
    const m = this.mr(project, iid)!;
    m.reviewers = [...m.reviewers.filter((r) => r.user !== user), { user, state }];
  }

  approve(project: string, iid: number, user: string): void {
    const m = this.mr(project, iid)!;
    if (!m.approvedBy.includes(user)) m.approvedBy.push(user);
  }

  merge(project: string, iid: number): void {
    Object.assign(this.mr(project, iid)!, { state: 'merged', updatedAt: Date.now() });
  }

  close(project: string, iid: number): void {
    Object.assign(this.mr(project, iid)!, { state: 'closed', updatedAt: Date.now() });
  }

  view(m: FakeMr) {
    return {
      id: m.iid * 11,
      iid: m.iid,
      project_id: 42,
      title: m.title,
      description: m.description,
      state: m.state,
      draft: isDraft(m.title),
      work_in_progress: isDraft(m.title),
      source_branch: m.source_branch,
      target_branch: m.target_branch,
      sha: this.sha(m),
      author: this.host.user(m.author),
      web_url: `https://gitlab.example/${m.project}/-/merge_requests/${m.iid}`,
      created_at: time(m.createdAt),
      updated_at: time(m.updatedAt),
      merged_at: m.state === 'merged' ? time(m.updatedAt) : null,
    };
  }

  private create(project: string, b: JsonBody | undefined, who: string): [number, unknown] {
    const { source_branch: source, target_branch: target, title } = (b ?? {}) as Record<string, unknown>;
    if (typeof source !== 'string' || typeof target !== 'string' || typeof title !== 'string') {
      return [400, { error: 'source_branch, target_branch, title are missing' }];
    }
    const git = this.host.branches(project);
    if (!git?.head(source)) return [422, { message: { source_branch: ['does not exist'] } }];
    if (!git.head(target)) return [422, { message: { target_branch: ['does not exist'] } }];
    const open = this.mrs.find((m) => m.project === project && m.source_branch === source && m.target_branch === target && m.state === 'opened');
    if (open) return [409, { message: [`Another open merge request already exists for this source branch: !${open.iid}`] }];
    const now = Date.now();
    const m: FakeMr = {
      project,
      iid: Math.max(0, ...this.mrs.filter((x) => x.project === project).map((x) => x.iid)) + 1,
      title,
      description: typeof b?.description === 'string' ? b.description : '',
      source_branch: source,
      target_branch: target,
      state: 'opened',
      author: who,
      createdAt: now,
      updatedAt: now,
      edits: 0,
      reviewers: [],
      approvedBy: [],
    };
    this.mrs.push(m);
    return [201, this.view(m)];
  }

  /** A PATCH / PUT of the item (the route's body). */
  change(m: FakeMr, b: JsonBody | undefined): void {
    if (typeof b?.title === 'string') m.title = b.title;
    if (typeof b?.description === 'string') m.description = b.description;
    if (b?.state_event === 'close') m.state = 'closed';
    if (b?.state_event === 'reopen' && m.state === 'closed') m.state = 'opened';
    if (typeof b?.title === 'string' || typeof b?.description === 'string') m.edits += 1;
    m.updatedAt = Date.now();
  }

  routes(who: () => string): Route[] {
    const projectOf = (m: RegExpExecArray) => decodeURIComponent(m[1]!);
    const mrOf = (m: RegExpExecArray) => this.mr(projectOf(m), Number(m[2]));
    const notFound: [number, unknown] = [404, { message: '404 Not found' }];
    const paged = <T>(items: T[], url: URL): [number, unknown, Record<string, string>?] => {
      const { page, headers } = this.host.page(items, url);
      return [200, page, headers];
    };
    return [
      {
        method: 'GET',
        pattern: new RegExp(`${PROJECT}/merge_requests$`),
        handle: (m, _b, url) => {
          const state = url.searchParams.get('state');
          const source = url.searchParams.get('source_branch');
          const all = this.mrs
            .filter((x) => x.project === projectOf(m) && (!state || state === 'all' || x.state === state) && (!source || x.source_branch === source))
            .sort((a, b) => b.createdAt - a.createdAt || b.iid - a.iid);
          return paged(
            all.map((x) => this.view(x)),
            url,
          );
        },
      },
      { method: 'POST', pattern: new RegExp(`${PROJECT}/merge_requests$`), handle: (m, b) => this.create(projectOf(m), b, who()) },
      ...itemRoutes(new RegExp(`${PROJECT}/merge_requests/(\\d+)$`), 'PUT', mrOf, this, notFound),
      {
        method: 'GET',
        pattern: new RegExp(`${PROJECT}/merge_requests/(\\d+)/reviewers$`),
        handle: (m) => {
          const mr = mrOf(m);
          if (!mr) return notFound;
          return [200, mr.reviewers.map((r) => ({ user: this.host.user(r.user), state: r.state, created_at: time(mr.createdAt) }))];
        },
      },
      {
        method: 'GET',
        pattern: new RegExp(`${PROJECT}/merge_requests/(\\d+)/approvals$`),
        handle: (m) => {
          const mr = mrOf(m);
          if (!mr) return notFound;
          const approved_by = mr.approvedBy.map((u) => ({ user: this.host.user(u) }));
          return [200, { iid: mr.iid, approved: approved_by.length > 0, approvals_required: 0, approvals_left: 0, approved_by }];
        },
      },
      {
        method: 'GET',
        pattern: new RegExp(`${PROJECT}/pipelines$`),
        handle: (m, _b, url) => {
          const sha = url.searchParams.get('sha');
          const asc = url.searchParams.get('sort') === 'asc';
          const all = this.pipelines
            .filter((p) => p.project === projectOf(m) && (!sha || p.sha === sha))
            .sort((a, b) => (b.id - a.id) * (asc ? -1 : 1));
          return paged(
            all.map((p) => ({
              id: p.id,
              project_id: 42,
              sha: p.sha,
              ref: p.ref,
              status: pipelineStatus(p),
              web_url: `https://gitlab.example/${p.project}/-/pipelines/${p.id}`,
            })),
            url,
          );
        },
      },
      {
        method: 'GET',
        pattern: new RegExp(`${PROJECT}/pipelines/(\\d+)/jobs$`),
        handle: (m, _b, url) => {
          const p = this.pipelines.find((x) => x.project === projectOf(m) && x.id === Number(m[2]));
          return p
            ? paged(
                p.jobs.map((j) => jobView(p, j)),
                url,
              )
            : notFound;
        },
      },
      {
        method: 'GET',
        pattern: new RegExp(`${PROJECT}/jobs/(\\d+)/trace$`),
        handle: (m) => {
          const job = this.pipelines
            .filter((p) => p.project === projectOf(m))
            .flatMap((p) => p.jobs)
            .find((j) => j.id === Number(m[2]));
          return job ? [200, new RawReply(job.log)] : notFound;
        },
      },
    ];
  }
}

/** A job as GitLab lists it (a failed one says why). */
function jobView(p: FakePipeline, j: FakeJob) {
  return {
    id: j.id,
    name: j.name,
    stage: j.stage,
    status: j.status,
    allow_failure: j.allow_failure,
    ...(j.status === 'failed' ? { failure_reason: j.failure_reason ?? 'script_failure' } : {}),
    web_url: `https://gitlab.example/${p.project}/-/jobs/${j.id}`,
    pipeline: { id: p.id, sha: p.sha, ref: p.ref },
  };
}

/** A pipeline's status from its jobs (failed when a job failed that may not). */
function pipelineStatus(p: FakePipeline): string {
  const s = p.jobs.map((j) => (j.status === 'failed' && j.allow_failure ? 'success' : j.status));
  if (s.includes('failed')) return 'failed';
  if (s.some((x) => x === 'running' || x === 'pending' || x === 'created')) return 'running';
  return 'success';
}
