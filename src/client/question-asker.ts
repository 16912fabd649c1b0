// Questions on the terminal: `watch` and `run --wait` ask the run's pending questions and send the answers.
import * as readline from 'node:readline';
import type { Client } from '@temporalio/client';
import type { Question, RunStatus } from '../workflows/messages';
import { ANSWER_HINTS, answerCommand, oneLine, pendingQuestions } from './render';
import { getStatus } from './run-inspect';
import { answerQuestion } from './run-updates';
import { AnswerRejected } from './errors';
import { phaseName } from '../domain/words/phases';

/** What `answer` and the asker say once an answer was taken. */
export function answeredLine(ack: { questionId: string; stillPending: string[] }): string {
  return `answered ${ack.questionId}${ack.stillPending.length ? ` (still waiting: ${ack.stillPending.join(', ')})` : ''}`;
}

/** Lines of an input stream, one at a time; `undefined` at end of input, `null` when a read was cancelled. */
class LineReader {
  private readonly buffered: string[] = [];
  private readonly waiters: ((line: string | undefined | null) => void)[] = [];
  private ended = false;
  private readonly rl: readline.Interface;

  constructor(input: NodeJS.ReadableStream) {
    this.rl = readline.createInterface({ input, crlfDelay: Infinity, terminal: false });
    this.rl.on('line', (line) => {
      const w = this.waiters.shift();
      if (w) w(line);
      else this.buffered.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      for (const w of this.waiters.splice(0)) w(undefined);
    });
  }

  next(): { line: Promise<string | undefined | null>; cancel: () => void } {
    if (this.buffered.length) return { line: Promise.resolve(this.buffered.shift()!), cancel: () => {} };
    if (this.ended) return { line: Promise.resolve(undefined), cancel: () => {} };
    let waiter!: (line: string | undefined | null) => void;
    const line = new Promise<string | undefined | null>((resolve) => (waiter = resolve));
    this.waiters.push(waiter);
    return {
      line,
      cancel: () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        waiter(null);
      },
    };
  }

  close(): void {
    this.rl.close();
  }
}

/**
 * On the terminal: asks each pending question once, reads one line per answer and sends it with
 * answerClarification. A rejected answer is explained and asked again while the question is still
 * pending; a question that stops waiting meanwhile (answered elsewhere, timed out) is dropped; end of
 * input stops asking (watching goes on).
 */
export class QuestionAsker {
  private readonly asked = new Set<string>();
  private readonly queue: Question[] = [];
  private readonly lines: LineReader;
  private running: Promise<void> | undefined;
  private stopped = false;
  private eof = false;
  private current: { id: string; cancel: () => void } | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly runId: string,
    input: NodeJS.ReadableStream,
    private readonly out: { write(s: string): unknown },
  ) {
    this.lines = new LineReader(input);
  }

  /** Feeds the newest status: queues new questions, withdraws the prompt of one no longer pending. */
  offer(s: RunStatus): void {
    if (this.stopped) return;
    const pending = pendingQuestions(s);
    if (this.current && !pending.some((q) => q.id === this.current!.id)) this.current.cancel();
    for (const q of pending) {
      if (this.asked.has(q.id)) continue;
      this.asked.add(q.id);
      this.queue.push(q);
    }
    if (!this.running && this.queue.length && !this.eof) {
      this.running = this.drain().finally(() => (this.running = undefined));
    }
  }

  /** Stops asking; waits for an answer being sent to finish. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopped = true;
      this.current?.cancel();
      this.lines.close();
      await this.running;
    })();
    return this.closing;
  }

  private print(line: string): void {
    this.out.write(`${line}\n`);
  }

  private async drain(): Promise<void> {
    while (!this.stopped && !this.eof) {
      const q = this.queue.shift();
      if (!q) return;
      await this.ask(q);
    }
  }

  private async ask(q: Question): Promise<void> {
    const hint = (ANSWER_HINTS[q.kind] ?? ANSWER_HINTS.clarification).short;
    this.print(`? ${q.id} (${q.kind}, ${phaseName(q.phase)} phase): ${oneLine(q.text, 400)}`);
    if (q.assumptions.length) this.print(`  without an answer the run assumes: ${oneLine(q.assumptions.join('; '), 300)}`);
    for (;;) {
      if (this.stopped) return;
      this.out.write(`  ${q.id} — ${hint} (end of input stops asking)> `);
      const read = this.lines.next();
      this.current = { id: q.id, cancel: read.cancel };
      const line = await read.line;
      this.current = undefined;
      if (line === null) {
        if (!this.stopped) this.print(`\n  ${q.id} is no longer waiting for an answer`);
        return;
      }
      if (line === undefined) {
        this.eof = true;
        if (!this.stopped) {
          this.print(`\n  input ended: not asking any more; answer with ${answerCommand(this.runId, q)}`);
        }
        return;
      }
      const answer = line.trim();
      if (!answer) {
        this.print(`  (empty answer: type ${q.kind === 'confirmation' ? 'yes or no' : 'your answer'}, or end input to stop asking)`);
        continue;
      }
      try {
        const ack = await answerQuestion(this.client, this.runId, q.id, answer);
        this.print(`  ${answeredLine(ack)}`);
        return;
      } catch (e) {
        if (!(e instanceof AnswerRejected)) {
          this.print(`  could not send the answer: ${(e as Error).message}; answer with ${answerCommand(this.runId, q)}`);
          return;
        }
        this.print(`  rejected: ${e.message}`);
        const s = await getStatus(this.client, this.runId).catch(() => undefined);
        if (s && !pendingQuestions(s).some((x) => x.id === q.id)) {
          this.print(`  ${q.id} is no longer waiting for an answer`);
          return;
        }
      }
    }
  }
}
