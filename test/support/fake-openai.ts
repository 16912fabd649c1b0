/**
 * The tests' fake LLM: the product's scripted model (src/scripted-model), a real HTTP server
 * speaking the OpenAI Chat Completions API scripted per `x-replanner-purpose` header, plus what
 * only tests need: outages (refused connections), concurrency and token counts, and the names the
 * tests know it by ("fake-openai", models fake-model and gpt-4o-mini).
 *
 * Why a real server instead of mocking the `openai` module: workflow tests run activities in a real
 * Temporal worker. Only a socket-level fake exercises the real client (timeouts, retry headers,
 * error classes) exactly as production does.
 */
import { ScriptedModel } from '../../src/scripted-model/server';
import type { RecordedRequest, ScriptedModelOptions } from '../../src/scripted-model/types';

export type { RecordedRequest } from '../../src/scripted-model/types';

export class FakeOpenAI extends ScriptedModel {
  /** Set while the listener is closed (refuseConnections): clients see ECONNREFUSED. */
  private refusing: { reopen?: ReturnType<typeof setTimeout> } | undefined;

  static override async start(opts: Omit<ScriptedModelOptions, 'label' | 'models'> = {}): Promise<FakeOpenAI> {
    return new FakeOpenAI(await ScriptedModel.listen({ ...opts, label: 'fake-openai', models: ['fake-model', 'gpt-4o-mini'] })).attach();
  }

  override stop(): Promise<void> {
    if (this.refusing?.reopen) clearTimeout(this.refusing.reopen);
    return super.stop();
  }

  // ---------------------------------------------------------------- inspection

  requestsFor(purpose: string): RecordedRequest[] {
    return this.requests.filter((r) => r.purpose === purpose);
  }

  successfulFor(purpose: string): RecordedRequest[] {
    return this.requests.filter((r) => r.purpose === purpose && r.status === 200);
  }

  /** Tokens reported by the successful answers so far (for one purpose or all). */
  tokensUsed(purpose?: string): number {
    return this.requests.filter((r) => purpose === undefined || r.purpose === purpose).reduce((n, r) => n + (r.usage?.total_tokens ?? 0), 0);
  }

  /**
   * Max number of requests in flight at once, by a sweep over [startedAt, finishedAt].
   * Requests still in flight count as open-ended. At equal timestamps a finish is
   * processed before a start, so strictly sequential calls that share a millisecond
   * are not mistaken for overlap.
   */
  maxConcurrency(purpose?: string): number {
    const rs = purpose === undefined ? this.requests : this.requestsFor(purpose);
    const events: [number, number][] = [];
    for (const r of rs) {
      events.push([r.startedAt, 1]);
      events.push([r.finishedAt ?? Number.POSITIVE_INFINITY, -1]);
    }
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let cur = 0;
    let max = 0;
    for (const [, d] of events) {
      cur += d;
      if (cur > max) max = cur;
    }
    return max;
  }

  // ---------------------------------------------------------------- outages

  /**
   * The endpoint goes away: the listener closes and every open connection is dropped, so clients
   * see ECONNREFUSED (requests in flight fail) until acceptConnections() listens on the same port.
   */
  async refuseConnections(): Promise<void> {
    if (this.refusing || this.stopped) return;
    this.refusing = {};
    this.cancelWaits();
    // Until acceptConnections: a dropped response's 'close' may come after server.close's callback.
    this.closingAll = true;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** The endpoint is back on the same port (and base URL). */
  async acceptConnections(): Promise<void> {
    if (!this.refusing || this.stopped) return;
    if (this.refusing.reopen) clearTimeout(this.refusing.reopen);
    this.refusing = undefined;
    this.closingAll = false;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /** Refuses connections now, and accepts them again after `ms`; resolves once refusing. `back` resolves when listening again. */
  async refuseConnectionsFor(ms: number): Promise<{ back: Promise<void> }> {
    await this.refuseConnections();
    const back = new Promise<void>((resolve, reject) => {
      if (!this.refusing) return resolve();
      this.refusing.reopen = setTimeout(() => {
        if (this.refusing) this.refusing.reopen = undefined;
        this.acceptConnections().then(resolve, reject);
      }, ms);
    });
    return { back };
  }

  /** True while connections are refused. */
  get refusingConnections(): boolean {
    return this.refusing !== undefined;
  }
}

/** Text of the last user message ('' if none). */
export function lastUserMessage(req: RecordedRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m && m.role === 'user') return m.content;
  }
  return '';
}
