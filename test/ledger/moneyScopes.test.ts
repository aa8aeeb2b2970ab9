import { describe, expect, it } from 'vitest';
import { afterMoneyMovement, MONEY_SCOPES, withLockedCustomer } from '../../src/modules/ledger/index.ts';
import { accountContext } from '../helpers/context.ts';
import { createCustomer } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// The money movements under way, and the work asked to follow them, are kept in the service's memory
// (ServiceContext.memory; docs/architecture.md, "State a service keeps"), never at module level: two services in one
// process keep their own.

const a = useTestService();
const b = useTestService();

describe('the money movements under way', () => {
  it('are kept by their service only, and dropped when the movement ends', async () => {
    const ctxA = await accountContext(a, a.accountId);
    const ctxB = await accountContext(b, b.accountId);
    const customerA = await createCustomer(a);
    const followed: string[] = [];
    const seen = await withLockedCustomer(ctxA, customerA, async (inMovement) => {
      // Asked during A's movement, A's work waits for it to end; B's, with no movement of B's under way, runs at once.
      await afterMoneyMovement(inMovement, 'a', async () => void followed.push('a'));
      await afterMoneyMovement(ctxB, 'b', async () => void followed.push('b'));
      return {
        followedDuring: [...followed],
        a: a.service.memory.part(MONEY_SCOPES).size,
        b: b.service.memory.part(MONEY_SCOPES).size,
      };
    });
    expect(seen).toEqual({ followedDuring: ['b'], a: 1, b: 0 });
    expect(followed).toEqual(['b', 'a']);
    expect(a.service.memory.part(MONEY_SCOPES).size).toBe(0);
    expect(a.service.memory.part(MONEY_SCOPES)).not.toBe(b.service.memory.part(MONEY_SCOPES));
  });
});
