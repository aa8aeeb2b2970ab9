import { describe, expect, it } from 'vitest';
import { CustomerQueue, ServiceBusyError } from './customerQueue.ts';

/** A piece of work the test ends when it chooses: `started` says whether it runs, `finish` ends it. */
function gate() {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const work = { started: false, finish, run: async () => {} };
  work.run = async () => {
    work.started = true;
    await finished;
  };
  return work;
}

/** Lets every promise callback that can run, run (no timers: order, not time). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const queue = (waitingPerCustomer: number, waitingPerAccount: number) =>
  new CustomerQueue({ waitingPerCustomer, waitingPerAccount, lockTimeoutMs: 1000 });

async function refusal(promise: Promise<unknown>): Promise<ServiceBusyError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceBusyError);
  return error as ServiceBusyError;
}

describe('CustomerQueue', () => {
  it("runs one customer's work one at a time, in the order it came", async () => {
    const q = queue(10, 10);
    const [a, b, c] = [gate(), gate(), gate()];
    const done: string[] = [];
    const runs = [
      q.inTurn(1, 7, a.run).then(() => done.push('a')),
      q.inTurn(1, 7, b.run).then(() => done.push('b')),
      q.inTurn(1, 7, c.run).then(() => done.push('c')),
    ];
    await settle();
    expect([a.started, b.started, c.started]).toEqual([true, false, false]);
    a.finish();
    await settle();
    expect([b.started, c.started]).toEqual([true, false]);
    b.finish();
    c.finish();
    await Promise.all(runs);
    expect(done).toEqual(['a', 'b', 'c']);
  });

  it("does not make other customers' work wait, in the same account or another", async () => {
    const q = queue(10, 10);
    const held = gate();
    const running = q.inTurn(1, 7, held.run);
    await expect(q.inTurn(1, 8, async () => 'other customer')).resolves.toBe('other customer');
    await expect(q.inTurn(2, 7, async () => 'other account')).resolves.toBe('other account');
    held.finish();
    await running;
  });

  it('refuses at once, running nothing, once the customer has its limit waiting', async () => {
    const q = queue(2, 10);
    const held = gate();
    const running = q.inTurn(1, 7, held.run);
    const waiting = [q.inTurn(1, 7, async () => 1), q.inTurn(1, 7, async () => 2)];
    let ran = false;
    const error = await refusal(
      q.inTurn(1, 7, async () => {
        ran = true;
      }),
    );
    expect(error.code).toBe('customer_busy');
    expect(error.retryAfterSeconds).toBe(1);
    expect(ran).toBe(false);
    held.finish();
    await expect(Promise.all(waiting)).resolves.toEqual([1, 2]);
    await running;
    // The line emptied: the customer's work runs again.
    await expect(q.inTurn(1, 7, async () => 'again')).resolves.toBe('again');
  });

  it("refuses once the account has its limit waiting, all its customers together, but not another account's", async () => {
    const q = queue(10, 2);
    const [x, y] = [gate(), gate()];
    const running = [q.inTurn(1, 7, x.run), q.inTurn(1, 8, y.run)];
    const waiting = [q.inTurn(1, 7, async () => 'x2'), q.inTurn(1, 8, async () => 'y2')];
    const full = await refusal(q.inTurn(1, 7, async () => 'x3'));
    expect(full.code).toBe('account_busy');
    expect(full.message).toMatch(/^This account already has 2 money movements and usage event calls waiting/);
    // A customer with nobody running takes its turn at once: it does not wait, so it is not refused.
    await expect(q.inTurn(1, 9, async () => 'z')).resolves.toBe('z');
    // Another account's work waits in a line of its own, which account 1's full one does not count against.
    const otherAccount = gate();
    const other = q.inTurn(2, 7, otherAccount.run);
    const otherWaiting = q.inTurn(2, 7, async () => 'waited in its own account');
    otherAccount.finish();
    await expect(otherWaiting).resolves.toBe('waited in its own account');
    x.finish();
    y.finish();
    await Promise.all([...running, other]);
    await expect(Promise.all(waiting)).resolves.toEqual(['x2', 'y2']);
  });

  it('hands the turn on when the work fails', async () => {
    const q = queue(10, 10);
    const failing = q.inTurn(1, 7, async () => {
      throw new Error('refused by the use case');
    });
    const next = q.inTurn(1, 7, async () => 'next');
    await expect(failing).rejects.toThrow('refused by the use case');
    await expect(next).resolves.toBe('next');
  });

  it("runs an account's usage calls one at a time, beside its customers' money, and bounds their line", async () => {
    const q = queue(1, 10);
    const [a, b] = [gate(), gate()];
    const first = q.inUsageTurn(1, a.run);
    const second = q.inUsageTurn(1, b.run);
    await settle();
    expect([a.started, b.started]).toEqual([true, false]);
    const busy = await refusal(q.inUsageTurn(1, async () => 'third'));
    expect(busy.code).toBe('usage_busy');
    expect(busy.message).toMatch(/^This account already has 1 usage event calls waiting in line/);
    await expect(q.inTurn(1, 7, async () => 'money')).resolves.toBe('money');
    await expect(q.inUsageTurn(2, async () => 'other account')).resolves.toBe('other account');
    a.finish();
    await settle();
    expect(b.started).toBe(true);
    b.finish();
    await Promise.all([first, second]);
  });

  it("runs up to `lanes` of an account's usage calls at once, the next when one ends", async () => {
    const q = queue(10, 10);
    const [a, b, c] = [gate(), gate(), gate()];
    const runs = [a, b, c].map((g) => q.inUsageTurn(1, g.run, { lanes: 2 }));
    await settle();
    expect([a.started, b.started, c.started]).toEqual([true, true, false]);
    b.finish();
    await settle();
    expect(c.started).toBe(true);
    a.finish();
    c.finish();
    await Promise.all(runs);
  });

  it('lets a waiting usage call withdrawn leave the line: its work never runs and its place is free', async () => {
    const q = queue(1, 10);
    const held = gate();
    const running = q.inUsageTurn(1, held.run);
    let withdraw!: () => void;
    const withdrawn = new Promise<void>((resolve) => (withdraw = resolve));
    let ran = false;
    const waiting = q.inUsageTurn(
      1,
      async () => {
        ran = true;
        return 'ran';
      },
      { withdrawn },
    );
    await settle();
    // The line's one place is taken.
    expect((await refusal(q.inUsageTurn(1, async () => 'refused'))).code).toBe('usage_busy');
    withdraw();
    await expect(waiting).resolves.toBeUndefined();
    // Its place is free again, and the next takes the turn once the running one ends.
    const next = q.inUsageTurn(1, async () => 'next');
    held.finish();
    await expect(next).resolves.toBe('next');
    await running;
    expect(ran).toBe(false);
  });

  it.each([
    ['the withdrawal first', 'withdrawal', undefined],
    ['the turn first', 'turn', 'ran'],
    ['both in one tick', 'same tick', 'either'],
  ])(
    'keeps the line right when a waiting call is withdrawn as its turn comes: %s',
    async (_, order, expected) => {
      const q = queue(10, 10);
      const held = gate();
      const running = q.inUsageTurn(1, held.run);
      let withdraw!: () => void;
      const withdrawn = new Promise<void>((resolve) => (withdraw = resolve));
      const waiting = q.inUsageTurn(1, async () => 'ran', { withdrawn });
      await settle();
      if (order === 'withdrawal') {
        withdraw();
        await settle();
        held.finish();
      } else if (order === 'turn') {
        held.finish();
        await running;
        withdraw();
      } else {
        held.finish();
        withdraw();
      }
      await running;
      // Withdrawn before its turn, the call left the line; given its turn, it took it and its work ran (in one tick,
      // either). Whichever, the line is free after.
      const outcome = await waiting;
      if (expected === 'either') expect(['ran', undefined]).toContain(outcome);
      else expect(outcome).toBe(expected);
      const other = gate();
      const next = q.inUsageTurn(1, other.run);
      await settle();
      expect(other.started).toBe(true);
      other.finish();
      await next;
    },
  );

  it('frees the place of a call whose withdrawal fails, or whose admission throws', async () => {
    const q = queue(1, 10);
    const held = gate();
    const running = q.inUsageTurn(1, held.run);
    const failing = q.inUsageTurn(1, async () => 'ran', { withdrawn: Promise.reject(new Error('gone')) });
    await expect(failing).resolves.toBeUndefined();
    const throwing = q.inUsageTurn(1, async () => 'ran', {
      admitted: () => {
        throw new Error('not admitted');
      },
    });
    await expect(throwing).rejects.toThrow('not admitted');
    // The line's one place is free again: the next call waits in it and runs once the held work ends.
    const next = q.inUsageTurn(1, async () => 'next');
    held.finish();
    await expect(next).resolves.toBe('next');
    await running;
    // And with no turn running, a call whose admission throws leaves no turn taken behind it.
    await expect(
      q.inUsageTurn(2, async () => 'ran', {
        admitted: () => {
          throw new Error('not admitted');
        },
      }),
    ).rejects.toThrow('not admitted');
    await expect(q.inUsageTurn(2, async () => 'free')).resolves.toBe('free');
  });
});
