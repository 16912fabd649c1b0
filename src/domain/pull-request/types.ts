// G3 / G4: the pull request (GitHub) or merge request (GitLab) a run ends in, as the forge
// activities (src/activities/forge) report it and the run keeps it. Plain data, small and bounded:
// it travels in activity inputs and results, and so in the run's history. No token ever: the
// worker's GITHUB_TOKEN / GITLAB_TOKEN stay in its environment.

/** Where the pull request lives: GitHub `owner/name`; GitLab `group/project` or a numeric id, and its host. */
export type ForgeProject = { service: 'github'; repo: string } | { service: 'gitlab'; project: string; url?: string };

export type PullRequestState = 'open' | 'merged' | 'closed';

/** The pull request as found or created (what the run keeps of it). */
export interface PullRequestRef {
  /** GitHub's pull request number; GitLab's merge request iid. */
  number: number;
  url: string;
  state: PullRequestState;
  draft: boolean;
  /** The head commit the forge sees. */
  headSha?: string;
  /** This call created it (false: it was found by its head branch). */
  created: boolean;
}

export interface EnsurePullRequestInput {
  runId: string;
  project: ForgeProject;
  /** The run's branch, in the same repository (`replanner/<runId>`). */
  head: string;
  base: string;
  title: string;
  /** Markdown; the activity adds the run's hidden marker. */
  body: string;
  /** Opened as a draft (default: true). */
  draft?: boolean;
}

export interface UpdatePullRequestInput {
  runId: string;
  project: ForgeProject;
  number: number;
  title?: string;
  body?: string;
}

export interface MarkReadyInput {
  project: ForgeProject;
  number: number;
}

/** A check on the head commit: a GitHub check run or commit status, a GitLab pipeline job. */
export interface PullRequestCheck {
  /** The same across polls and heads: `check:<name>`, `status:<context>`, `job:<name>`. */
  key: string;
  name: string;
  source: 'check_run' | 'status' | 'pipeline_job';
  /** neutral: skipped, cancelled, allowed to fail, waiting for a person. */
  state: 'pending' | 'passed' | 'failed' | 'neutral';
  /** What the check said (output title and summary; a status's description; a job's failure reason); bounded. */
  summary?: string;
  /** The end of its log, where the forge gives one; read only for a failure not seen before. */
  logTail?: string;
  url?: string;
}

export interface PullRequestReview {
  /** GitHub's review id; GitLab: `rc:<reviewer>:<their newest note id>`. */
  id: string;
  author: string;
  /** The author may write to the repository (GitHub write, maintain or admin; GitLab Developer or above). */
  authorised: boolean;
  bot: boolean;
  /** Posted by the run itself (it carries a replanner marker). */
  own: boolean;
  state: 'changes_requested' | 'approved' | 'commented' | 'dismissed';
  /** The review's text with its line comments (`path:line: text`); bounded. */
  body: string;
  submittedAt: string;
  /** The head the review was given on. */
  commitId?: string;
  url?: string;
}

export interface PullRequestComment {
  id: number;
  author: string;
  authorised: boolean;
  bot: boolean;
  own: boolean;
  body: string;
  createdAt: string;
  updatedAt: string;
}

/** Where the next read of the thread's comments starts (the forge's clock, and its ETag). */
export interface FeedbackCursor {
  since?: string;
  etag?: string;
}

/** What the run has acted on or logged already (bounded lists, carried in the run's state). */
export interface FeedbackSeen {
  /** `<head sha>:<check key>`. */
  checks: string[];
  reviews: string[];
  comments: number[];
}

export interface ReadFeedbackInput {
  project: ForgeProject;
  number: number;
  cursor?: FeedbackCursor;
  /** Log tails and line comments are read only for what is not in here. */
  seen?: FeedbackSeen;
  /** Who may review, as read before in this run (login → may write); returned grown. */
  authority?: Record<string, boolean>;
}

/** One read of the pull request: its state, the checks on its head, reviews, new comments. */
export interface PullRequestFeedback {
  state: PullRequestState;
  draft: boolean;
  headSha: string;
  checks: PullRequestCheck[];
  reviews: PullRequestReview[];
  /** Comments changed since the cursor, oldest first. */
  comments: PullRequestComment[];
  approvedBy: string[];
  cursor: FeedbackCursor;
  authority: Record<string, boolean>;
}

export interface ReplyInput {
  runId: string;
  project: ForgeProject;
  number: number;
  /** Unique within the run: a retried reply is found by its marker, never posted twice. */
  key: string;
  /** Markdown (LLM text is neutralized: no quick actions, no mentions). */
  body: string;
  /** The review or comment this answers: the reply names its author and links it. */
  inReplyTo?: { kind: 'review' | 'comment'; id: string | number; author: string; url?: string };
}

/** The failure types of the forge activities (ApplicationFailure `type`). */
export const PULL_REQUEST_NO_COMMITS = 'PullRequestNoCommits';
export const FORGE_REJECTED = 'ForgeRejected';
export const FORGE_UNAVAILABLE = 'ForgeUnavailable';
