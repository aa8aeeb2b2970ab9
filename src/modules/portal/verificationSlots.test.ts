import { describe, expect, it } from 'vitest';
import { VerificationSlots } from './verificationSlots.ts';
import type { ReleaseSlot } from './verificationSlots.ts';

const A = 1;
const B = 2;
const C = 3;

describe('VerificationSlots', () => {
  it('keeps slots for other accounts while one account asks for more than its share', async () => {
    const slots = new VerificationSlots(5, 2, 10);
    const flood = Array.from({ length: 12 }, () => slots.acquire(A));
    // A holds two slots and queues ten: B still finds room, at once, for its own two.
    const [b1, b2] = await Promise.all([slots.acquire(B), slots.acquire(B)]);
    expect(typeof b1).toBe('function');
    expect(typeof b2).toBe('function');
    expect(slots.usage(A)).toEqual({ running: 4, ofAccount: 2, waiting: 10 });
    // Beyond its queue A is busy; C finds the last slot.
    expect(await slots.acquire(A)).toBe('busy');
    expect(typeof (await slots.acquire(C))).toBe('function');
    // The process is full now: C, below its share, is told busy rather than queued behind other accounts.
    expect(await slots.acquire(C)).toBe('busy');
    expect(flood).toHaveLength(12);
  });

  it("hands a freed slot to the same account's queue, first come first served", async () => {
    const slots = new VerificationSlots(5, 2, 10);
    const first = (await slots.acquire(A)) as ReleaseSlot;
    const second = (await slots.acquire(A)) as ReleaseSlot;
    const order: string[] = [];
    const third = slots.acquire(A).then((release) => {
      order.push('third');
      return release;
    });
    const fourth = slots.acquire(A).then((release) => {
      order.push('fourth');
      return release;
    });
    expect(slots.usage(A).waiting).toBe(2);
    first();
    const thirdRelease = (await third) as ReleaseSlot;
    expect(order).toEqual(['third']);
    expect(slots.usage(A)).toEqual({ running: 2, ofAccount: 2, waiting: 1 });
    second();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
    thirdRelease();
    thirdRelease();
    expect(slots.usage(A)).toEqual({ running: 1, ofAccount: 1, waiting: 0 });
  });

  it('answers busy when the process is full with other accounts', async () => {
    const slots = new VerificationSlots(5, 2, 10);
    for (const account of [A, A, B, B, C]) expect(typeof (await slots.acquire(account))).toBe('function');
    expect(await slots.acquire(4)).toBe('busy');
  });
});
