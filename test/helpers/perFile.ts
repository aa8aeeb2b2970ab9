import { afterAll } from 'vitest';
import { closeLeftOpen } from './service.ts';

// Run before every file of the dialect projects. Files share their worker (vitest.config.ts, "isolate"): a service a
// file left running would deliver webhooks and run workers in the next file's time, to ports the next file may reuse.
afterAll(async () => {
  const closed = await closeLeftOpen();
  if (closed.length > 0) console.warn(`closed what this file left running: ${closed.join(', ')}`);
});
