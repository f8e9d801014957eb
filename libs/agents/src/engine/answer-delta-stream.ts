import type { RunEventEmitter } from '@warden/hooks';

/** How long answer text is gathered before it becomes one `answer_delta` event (each event is a database row). */
const COALESCE_MS = 100;

/**
 * Turns the model's streamed text into `answer_delta` events: pieces arriving within 100 ms become one event, written
 * in order. `close()` waits for every write and hands what is left to `deferLast` (written with the run's next write,
 * in its transaction: the final answer's last words commit with the answer), so the deltas precede whatever the run
 * emits next (tool calls, the full `answer`).
 */
export class AnswerDeltaStream {
  private buffer = '';
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly emit: RunEventEmitter,
    private readonly deferLast?: (content: string) => void,
  ) {}

  readonly push = (delta: string): void => {
    this.buffer += delta;
    this.timer ??= setTimeout(() => this.flush(), COALESCE_MS);
  };

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
    if (this.buffer !== '' && this.deferLast) {
      this.deferLast(this.buffer);
      this.buffer = '';
    }
    this.flush();
    await this.chain;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer === '') return;
    const content = this.buffer;
    this.buffer = '';
    // A lost delta only costs the live preview: the full `answer` event follows.
    this.chain = this.chain.then(() => this.emit('answer_delta', { content })).catch(() => undefined);
  }
}
