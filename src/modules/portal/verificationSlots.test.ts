import { describe, expect, it } from 'vitest';
import { CONCURRENT_VERIFICATIONS, passwordCheckSlots } from './portalAuth.service.ts';
import { VerificationSlots } from './verificationSlots.ts';
import type { ReleaseSlot } from './verificationSlots.ts';

const A = 1;
const B = 2;
const C = 3;
const D = 4;

/** Acquires a slot that a test expects to get at once. */
async function held(slots: VerificationSlots, accountId: number): Promise<ReleaseSlot> {
  const release = await slots.acquire(accountId);
  if (release === 'busy') throw new Error(`account ${accountId} was told busy`);
  return release;
}

/** Acquires a slot, recording in `order` when it is given. */
function queued(slots: VerificationSlots, accountId: number, order: number[]): Promise<ReleaseSlot | 'busy'> {
  return slots.acquire(accountId).then((release) => {
    order.push(accountId);
    return release;
  });
}

describe('VerificationSlots', () => {
  it('lets a fourth account in while three accounts under attack fill the process: it has the next slot freed', async () => {
    const slots = new VerificationSlots(5, 10);
    const running = [await held(slots, A), await held(slots, A), await held(slots, B), await held(slots, B)];
    running.push(await held(slots, C));
    const order: number[] = [];
    // Each attacked account keeps checks waiting; D's one check comes last.
    const waiting = [A, A, A, B, B, C, C].map((account) => queued(slots, account, order));
    const d = queued(slots, D, order);
    expect(slots.usage(D)).toEqual({ running: 5, ofAccount: 0, waiting: 1 });
    // The freed slots go round the accounts waiting, in the order they began to wait: A, B, C, D, then A again.
    for (const release of running.slice(0, 4)) release();
    expect(await d).not.toBe('busy');
    expect(order).toEqual([A, B, C, D]);
    running[4]!();
    await waiting[1];
    expect(order).toEqual([A, B, C, D, A]);
  });

  it('starts a check at once while there is room, whatever its account already runs', async () => {
    const slots = new VerificationSlots(5, 10);
    for (let i = 0; i < 5; i++) await held(slots, A);
    expect(slots.usage(A)).toEqual({ running: 5, ofAccount: 5, waiting: 0 });
  });

  it("answers busy beyond an account's own queue, and keeps others' queues open", async () => {
    const slots = new VerificationSlots(2, 2);
    await held(slots, A);
    await held(slots, A);
    const order: number[] = [];
    void queued(slots, A, order);
    void queued(slots, A, order);
    expect(await slots.acquire(A)).toBe('busy');
    expect(slots.usage(B).waiting).toBe(0);
    void queued(slots, B, order);
    expect(slots.usage(B)).toEqual({ running: 2, ofAccount: 0, waiting: 1 });
  });

  it("hands an account's own checks on first come first served, and counts a release once", async () => {
    const slots = new VerificationSlots(1, 10);
    const first = await held(slots, A);
    const order: string[] = [];
    const second = slots.acquire(A).then((release) => {
      order.push('second');
      return release as ReleaseSlot;
    });
    const third = slots.acquire(A).then((release) => {
      order.push('third');
      return release as ReleaseSlot;
    });
    first();
    first();
    const secondRelease = await second;
    expect(order).toEqual(['second']);
    expect(slots.usage(A)).toEqual({ running: 1, ofAccount: 1, waiting: 1 });
    secondRelease();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(slots.usage(A)).toEqual({ running: 0, ofAccount: 0, waiting: 0 });
  });

  it("gives each service slots of its own: one service's full slots do not hold another's checks", async () => {
    // Two services in one process, as tests start them: each composition root calls passwordCheckSlots.
    const first = passwordCheckSlots();
    const second = passwordCheckSlots();
    for (let i = 0; i < CONCURRENT_VERIFICATIONS; i++) await held(first, A);
    const order: number[] = [];
    void queued(first, A, order);
    expect(first.usage(A)).toEqual({
      running: CONCURRENT_VERIFICATIONS,
      ofAccount: CONCURRENT_VERIFICATIONS,
      waiting: 1,
    });
    // The same account on the other service starts at once.
    await held(second, A);
    expect(second.usage(A)).toEqual({ running: 1, ofAccount: 1, waiting: 0 });
  });
});
