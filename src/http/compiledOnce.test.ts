import { describe, expect, it } from 'vitest';
import { compiledWhenFirstCalled } from './compiledOnce.ts';

describe('compiledWhenFirstCalled', () => {
  it("compiles on the first call only, and carries the compiled check's errors", () => {
    let compilations = 0;
    const check = compiledWhenFirstCalled(() => {
      compilations += 1;
      const isEven = (n: number) => {
        isEven.errors = n % 2 === 0 ? undefined : [{ message: `${n} is odd` }];
        return n % 2 === 0;
      };
      isEven.errors = undefined as { message: string }[] | undefined;
      return isEven;
    });
    expect(compilations).toBe(0);
    expect(check.errors).toBeUndefined();

    expect(check(3)).toBe(false);
    expect(check.errors).toEqual([{ message: '3 is odd' }]);
    expect(check(4)).toBe(true);
    expect(check.errors).toBeUndefined();
    expect(compilations).toBe(1);
  });

  it('compiles again on the next call when compiling threw', () => {
    let attempts = 0;
    const check = compiledWhenFirstCalled(() => {
      attempts += 1;
      if (attempts === 1) throw new Error('schema refused');
      return (value: unknown) => value === 'ok';
    });
    expect(() => check('ok')).toThrow('schema refused');
    expect(check('ok')).toBe(true);
    expect(attempts).toBe(2);
  });
});
