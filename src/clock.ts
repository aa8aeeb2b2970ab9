/** The only reader of the wall clock. Domain code receives a Clock and never calls Date itself. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
