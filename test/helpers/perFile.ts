import { afterAll, beforeAll } from 'vitest';
import { resetMovableClocks } from './billing.ts';
import { closeLeftOpen } from './service.ts';

// Run before every file of the dialect projects. Files share their worker and its loaded modules
// (vitest.config.ts, "isolate"), so what one file changed in a module the next file imports is set back here.

// A fixture module's clock (invoices.fixtures.ts, …) starts where its file expects it, not where the last file that
// imported the fixture moved it.
beforeAll(resetMovableClocks);

// A service a file left running would deliver webhooks and run workers in the next file's time, to ports the next
// file may reuse.
afterAll(async () => {
  const closed = await closeLeftOpen();
  if (closed.length > 0) console.warn(`closed what this file left running: ${closed.join(', ')}`);
});
