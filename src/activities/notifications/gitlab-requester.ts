// gitbeaker's requester with one attempt per request. @gitbeaker/rest's own requester retries
// a 429 or 502 ten times within about 0.3 s and then throws GitbeakerRetryError, which keeps neither
// the response nor its headers (a retry-after, a rate limit's reset): the retry table
// (src/domain/failures.ts) could not decide. This one sends each request once and throws what the
// server said the way gitbeaker does (GitbeakerRequestError, the response in its cause), so a 429 or
// a 5xx reaches the run's delivery queue with its headers. It can also send a conditional GET
// (If-None-Match) and report the response's ETag: the replies poll asks "anything new?" cheaply.
import { tailResponse } from '../forge/read-tail';
import { createRequesterFn, GitbeakerRequestError, GitbeakerTimeoutError, type FormattedResponse } from '@gitbeaker/requester-utils';

/** A conditional GET: the ETag to send and, after the call, the one the server gave. */
export interface Conditional {
  /** Sent as If-None-Match with the next GET (then cleared: only the first page is conditional). */
  ifNoneMatch?: string;
  /** The ETag of the last GET's response. */
  etag?: string;
}

/** What gitbeaker's options handler gives the request handler (requester-utils defaultOptionsHandler). */
interface HandlerOptions {
  prefixUrl?: string;
  searchParams?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | FormData;
  signal?: AbortSignal;
}

async function parsed(response: Response): Promise<FormattedResponse> {
  const headers = Object.fromEntries(response.headers.entries());
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (response.status === 204) return { body: null, headers, status: response.status };
  const body = type === 'application/json' ? (((await response.json()) as FormattedResponse['body']) ?? {}) : await response.text();
  return { body, headers, status: response.status };
}

async function requestError(request: Request, response: Response): Promise<never> {
  const content = await response.text();
  let description = content;
  if (response.headers.get('content-type')?.includes('application/json')) {
    try {
      const out = JSON.parse(content) as { error?: unknown; message?: unknown } | null;
      const said = out?.error ?? out?.message ?? '';
      description = typeof said === 'string' ? said : JSON.stringify(said);
    } catch {
      description = content;
    }
  }
  throw new GitbeakerRequestError(description || `${response.status}`, { cause: { description, request, response } });
}

/**
 * gitbeaker's `requesterFn` sending each request once; `conditional` makes GETs conditional; with
 * `textTailBytes` a body is read only to its last that many bytes (a CI job's log).
 */
export function singleAttemptRequester(conditional: Conditional = {}, textTailBytes?: number) {
  return createRequesterFn(
    (_service, options) => Promise.resolve(options),
    async (endpoint: string, raw?: Record<string, unknown>) => {
      const { prefixUrl, searchParams, method = 'GET', headers, body, signal } = (raw ?? {}) as HandlerOptions;
      const base = prefixUrl ? (prefixUrl.endsWith('/') ? prefixUrl : `${prefixUrl}/`) : undefined;
      const url = new URL(endpoint, base);
      url.search = searchParams ?? '';
      const sent: Record<string, string> = { ...headers };
      if (method === 'GET' && conditional.ifNoneMatch) sent['if-none-match'] = conditional.ifNoneMatch;
      delete conditional.ifNoneMatch;
      const request = new Request(url, { method, headers: sent, ...(body !== undefined ? { body } : {}), ...(signal ? { signal } : {}) });
      const response = await fetch(request).catch((e: unknown) => {
        const name = (e as { name?: unknown }).name;
        if (name === 'TimeoutError' || name === 'AbortError') throw new GitbeakerTimeoutError('Query timeout was reached');
        throw e;
      });
      if (method === 'GET') conditional.etag = response.headers.get('etag') ?? undefined;
      if (!response.ok) return requestError(request, response);
      return parsed(textTailBytes === undefined ? response : await tailResponse(response, textTailBytes));
    },
  );
}
