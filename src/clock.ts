/**
 * The only reader of the wall clock. Domain code receives a Clock (`ctx.clock`, `ctx.wallClock`) and never calls
 * Date itself; entry points choose `systemClock` (docs/architecture.md, "Two clocks").
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still at an instant: a test account's clock between two moves. */
export function fixedClock(at: string): Clock {
  const epochMilliseconds = Date.parse(at);
  return { now: () => new Date(epochMilliseconds) };
}
