import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/core/calendar.ts';
import { api, killAll, startServer } from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// Two processes serving one database, as `serve --workers 2` or two machines do: a test account's clock moved
// through one is the clock the other bills with on the next request (docs/architecture.md, "Two clocks").
// The second process is a real `billing serve`: two instances in one process share its caches
// (src/modules/auth/credentialsCache.ts), so they could not disagree.
let other: RunningServer;
let shop: TestAccount;

const t = useTestService();
beforeAll(async () => {
  other = await startServer(t.env);
  shop = await t.newAccount('Clock Shop', { isTest: true });
});
afterAll(async () => {
  await killAll();
});

interface Process {
  name: string;
  request(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any }>;
}

describe('a test clock moved through one process', () => {
  it('is the clock another process reads right after the advance answers, every time', async () => {
    const here: Process = {
      name: 'the test process',
      request: async (method, urlPath, body) => {
        const res = await shop.request(method, urlPath, body === undefined ? {} : { body });
        return { status: res.status, body: res.body };
      },
    };
    const there: Process = {
      name: 'the other process',
      request: (method, urlPath, body) => api(other.url, shop, method, urlPath, body),
    };
    const clockOn = async (process: Process) => {
      const res = await process.request('GET', '/v1/test-clock');
      expect(res.status).toBe(200);
      return res.body as { Now: string; Today: string };
    };

    let today = (await clockOn(here)).Today;
    for (let round = 0; round < 50; round += 1) {
      // Each way in turn: the child told by the test process's commit, and the test process by the child's.
      const [mover, reader] = round % 2 === 0 ? [here, there] : [there, here];
      // The reader has just looked the account up (and keeps what it found, where it keeps lookups).
      expect((await clockOn(reader)).Today).toBe(today);

      const next = addDays(today, 1);
      const moved = await mover.request('POST', '/v1/test-clock/advance', { To: next });
      expect(moved.status).toBe(200);
      expect(moved.body.Today).toBe(next);

      const seen = await clockOn(reader);
      expect({ round, reader: reader.name, Today: seen.Today }).toEqual({
        round,
        reader: reader.name,
        Today: next,
      });
      expect(seen.Now).toBe(moved.body.Now);
      today = next;
    }
  });
});
