import { afterAll, beforeAll, expect, vi } from 'vitest';
import { resetMovableClocks } from './billing.ts';
import { closeLeftOpen } from './service.ts';

// Run before every file of the dialect projects. Files share their worker and its loaded modules
// (vitest.config.ts, "isolate"), so what one file changed in a module the next file imports is set back here.

// A page in a browser gets 90 s a test: signing in, axe on each state in both colour schemes and screenshots took a
// portal test past the default 30 s on a slow machine with the other worker busy. Read as the file's tests are
// collected, after this; vitest sets the configuration back when the file ends.
if (expect.getState().testPath?.endsWith('.browser.test.ts')) vi.setConfig({ testTimeout: 90_000 });

// A fixture module's clock (invoices.fixtures.ts, …) starts where its file expects it, not where the last file that
// imported the fixture moved it.
beforeAll(resetMovableClocks);

// A service a file left running would deliver webhooks and run workers in the next file's time, to ports the next
// file may reuse.
afterAll(async () => {
  const closed = await closeLeftOpen();
  if (closed.length > 0) console.warn(`closed what this file left running: ${closed.join(', ')}`);
});
