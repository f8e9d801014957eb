import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { sleep } from '../support/eventually.js';
import { payingModel, startHarness, type Harness } from './process-harness.js';

/** What a fault suite works with: the paying model, the OA target, and the server processes it starts. */
export interface FaultSuite {
  llm: FakeOpenAI;
  oa: HttpFake;
  /** Server processes on a fresh database, with this suite's fakes; the harness started before is closed first. */
  harness(opts?: { env?: Record<string, string> }): Promise<Harness>;
}

/**
 * The fault suites' set-up (kill -9, SIGSTOP, dropped connections): the paying model and an OA target that pays after
 * `delayMs()` ms start before the file's tests; they and the last harness close after them.
 */
export function useFaultSuite(delayMs: () => number = () => 0): FaultSuite {
  let current: Harness | undefined;
  const suite = {
    async harness(opts: { env?: Record<string, string> } = {}) {
      const previous = current;
      current = undefined;
      await previous?.close();
      current = await startHarness({ llm: suite.llm, oa: suite.oa, ...opts });
      return current;
    },
  } as FaultSuite;
  beforeAll(async () => {
    suite.llm = await startFakeOpenAI(payingModel);
    suite.oa = await startHttpFake(async (req) => {
      const ms = delayMs();
      if (ms > 0) await sleep(ms);
      return { paid: req.path.split('/')[2] };
    });
  });
  afterAll(async () => {
    await current?.close();
    await suite.llm?.close();
    await suite.oa?.close();
  });
  return suite;
}
