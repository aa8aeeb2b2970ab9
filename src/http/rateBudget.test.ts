import { describe, expect, it } from 'vitest';
import { ServiceBusyError } from './customerQueue.ts';
import { RateBudget } from './rateBudget.ts';

describe('RateBudget', () => {
  it('takes while every quantity has room, refuses whole when one has none, and fills again with time', () => {
    let now = 0;
    const budget = new RateBudget(
      { events: { perSecond: 10, burst: 100 }, bytes: { perSecond: 1000, burst: 2000 } },
      { now: () => new Date(now) },
    );
    const take = (key: string, events: number, bytes: number) => () =>
      budget.take(key, { events, bytes }, 'too_fast', 'Too fast');
    expect(take('a', 100, 500)).not.toThrow();
    const refused = (() => {
      try {
        take('a', 1, 1)();
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ServiceBusyError);
    expect(refused).toMatchObject({ code: 'too_fast', status: 429, retryAfterSeconds: 1 });
    // Another key has its own buckets; bytes alone can refuse, and then no event is taken either.
    expect(take('b', 1, 1500)).not.toThrow();
    expect(take('b', 1, 1500)).toThrow(ServiceBusyError);
    now += 1000;
    expect(take('b', 98, 1500)).not.toThrow();
    // Six seconds gather 60 events for `a`, all of which it may take at once.
    now += 5000;
    expect(take('a', 60, 10)).not.toThrow();
    expect(take('a', 1, 10)).toThrow(ServiceBusyError);
  });
});
