/**
 * The checks of the fake GitHub's commits (fake-github.ts), as GitHub's REST API shows them to
 * @octokit/rest: the check runs of a commit (the latest of each name unless `filter=all`), its
 * combined status (the latest of each context), and a GitHub Actions job's log: a redirect to
 * storage on another host (localhost for 127.0.0.1), served there without a token. A test adds
 * check runs and statuses and changes them. No jest here.
 */
import { RawReply, type Route } from './fake-forge';
import { githubTime, type PullsHost } from './fake-github-pulls';

export interface FakeCheckRun {
  id: number;
  repo: string;
  head_sha: string;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: null | 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required';
  output: { title: string | null; summary: string | null; text: string | null };
  /** The app that made it: 'github-actions' for a workflow's job (whose log can be downloaded). */
  app: string;
  /** The job's log (GitHub Actions only). */
  log?: string;
}

export interface FakeStatus {
  id: number;
  repo: string;
  sha: string;
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string | null;
  target_url: string | null;
  at: number;
}

const REPO = '/repos/([^/]+)/([^/]+)';

export class GithubCheckStore {
  readonly checkRuns: FakeCheckRun[] = [];
  readonly statuses: FakeStatus[] = [];
  private nextId = 9000;

  constructor(private readonly host: Pick<PullsHost, 'baseURL' | 'page'>) {}

  addCheckRun(repo: string, sha: string, run: Partial<Omit<FakeCheckRun, 'id' | 'repo' | 'head_sha'>> & { name: string }): FakeCheckRun {
    const c: FakeCheckRun = {
      id: this.nextId++,
      repo,
      head_sha: sha,
      status: 'completed',
      conclusion: 'success',
      app: 'github-actions',
      ...run,
      output: { title: null, summary: null, text: null, ...run.output },
    };
    this.checkRuns.push(c);
    return c;
  }

  setStatus(
    repo: string,
    sha: string,
    s: Pick<FakeStatus, 'context' | 'state'> & Partial<Pick<FakeStatus, 'description' | 'target_url'>>,
  ): FakeStatus {
    const st: FakeStatus = { id: this.nextId++, repo, sha, description: null, target_url: null, ...s, at: Date.now() };
    this.statuses.push(st);
    return st;
  }

  private checkRunView(c: FakeCheckRun) {
    return {
      id: c.id,
      name: c.name,
      head_sha: c.head_sha,
      status: c.status,
      conclusion: c.status === 'completed' ? c.conclusion : null,
      html_url: `https://github.example/${c.repo}/runs/${c.id}`,
      details_url: `https://github.example/${c.repo}/actions/runs/1/job/${c.id}`,
      output: { ...c.output, annotations_count: 0 },
      app: { slug: c.app, name: c.app },
    };
  }

  routes(): Route[] {
    const repoOf = (m: RegExpExecArray) => `${m[1]}/${m[2]}`;
    const notFound: [number, unknown] = [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }];
    return [
      {
        method: 'GET',
        pattern: new RegExp(`^${REPO}/commits/([^/]+)/check-runs$`),
        handle: (m, _b, url) => {
          const runs = this.checkRuns.filter((c) => c.repo === repoOf(m) && c.head_sha === m[3]);
          // filter=latest (the default): the most recent run of each name.
          const latest = url.searchParams.get('filter') === 'all' ? runs : runs.filter((c) => !runs.some((d) => d.name === c.name && d.id > c.id));
          const { page, headers } = this.host.page(latest, url);
          return [200, { total_count: latest.length, check_runs: page.map((c) => this.checkRunView(c)) }, headers];
        },
      },
      {
        method: 'GET',
        pattern: new RegExp(`^${REPO}/commits/([^/]+)/status$`),
        handle: (m) => {
          const all = this.statuses.filter((s) => s.repo === repoOf(m) && s.sha === m[3]);
          const latest = all.filter((s) => !all.some((t) => t.context === s.context && t.id > s.id));
          const states = latest.map((s) => s.state);
          const state = states.some((s) => s === 'failure' || s === 'error')
            ? 'failure'
            : states.length && states.every((s) => s === 'success')
              ? 'success'
              : 'pending';
          const statuses = latest.map((s) => ({
            id: s.id,
            context: s.context,
            state: s.state,
            description: s.description,
            target_url: s.target_url,
            updated_at: githubTime(s.at),
          }));
          return [200, { state, sha: m[3], total_count: statuses.length, statuses }];
        },
      },
      {
        method: 'GET',
        pattern: new RegExp(`^${REPO}/actions/jobs/(\\d+)/logs$`),
        handle: (m) => {
          const c = this.checkRuns.find((x) => x.repo === repoOf(m) && x.id === Number(m[3]) && x.app === 'github-actions');
          if (!c || c.log === undefined) return notFound;
          // Storage on another host (localhost for 127.0.0.1): the client must not send its token there.
          const storage = this.host.baseURL().replace('127.0.0.1', 'localhost');
          return [302, new RawReply(''), { location: `${storage}/_storage/job-logs/${c.id}?sig=signed` }];
        },
      },
      {
        method: 'GET',
        open: true,
        pattern: /^\/_storage\/job-logs\/(\d+)$/,
        handle: (m) => {
          const c = this.checkRuns.find((x) => x.id === Number(m[1]));
          return c?.log !== undefined ? [200, new RawReply(c.log)] : [404, new RawReply('BlobNotFound')];
        },
      },
    ];
  }
}
