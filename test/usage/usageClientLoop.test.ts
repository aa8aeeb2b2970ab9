import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, movableClock } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { defineMetric } from './usage.fixtures.ts';

// The copy-paste client loops of docs/usage.md ("A client loop"), taken from the document as written and run
// against a real service: what a reader pastes must send its events once, report the refused ones and be safe to
// run again.

const run = promisify(execFile);
const clock = movableClock('2026-11-20T12:00:00.000Z');
let customerId: number;
let workDir: string;

/** The fenced block of `language` under the heading `heading` of docs/usage.md. */
async function documentedBlock(heading: string, language: string): Promise<string> {
  const doc = await fs.readFile(path.join(import.meta.dirname, '../../docs/usage.md'), 'utf8');
  const section = doc.slice(doc.indexOf(`### ${heading}`));
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section);
  if (!block) throw new Error(`docs/usage.md has no ${language} block under "${heading}"`);
  return block[1]!;
}

const countedEvents = async () => {
  const res = await t.request('GET', `/v1/customers/${customerId}/usage-events?page_size=200`);
  expect(res.status, res.text).toBe(200);
  return res.body as { transaction_id: string; properties: Record<string, unknown> }[];
};

const t = useTestService({ clock });
beforeAll(async () => {
  await defineMetric(t.service.storage.db, t.accountId, 'api_calls', 'count');
  customerId = await createCustomer(t);
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'usage-client-'));
});
afterAll(async () => {
  await fs.rm(workDir, { recursive: true, force: true });
});

const environment = () => ({
  ...process.env,
  BASE: t.url,
  ACCOUNT_ID: String(t.accountId),
  API_KEY: t.apiKey,
});

describe('the client loops of docs/usage.md', () => {
  it('the Node loop sends its example events once each', async () => {
    const script = (await documentedBlock('Node', 'js')).replace(
      'customerID: 1042',
      `customerID: ${customerId}`,
    );
    expect(script).toContain(`customerID: ${customerId}`);
    const file = path.join(workDir, 'usage-sender.mjs');
    await fs.writeFile(file, script);

    const { stderr } = await run(process.execPath, [file], { env: environment() });
    expect(stderr).toBe('');
    const events = await countedEvents();
    expect(events.map((e) => e.properties.weight).sort()).toEqual([1, 2, 3]);
  });

  it('the curl loop sends 150 events in two batches, prints the refused one, and a rerun stores nothing twice', async () => {
    const before = (await countedEvents()).length;
    const lines = Array.from({ length: 150 }, (_, n) =>
      JSON.stringify({
        transaction_id: `curl-${n}`,
        customerID: customerId,
        code: n === 120 ? 'no_such_metric' : 'api_calls',
        timestamp: '2026-11-20T11:00:00Z',
        properties: { n },
      }),
    );
    const script = path.join(workDir, 'send.sh');
    await fs.writeFile(script, await documentedBlock('curl and jq', 'sh'));
    const send = async () => {
      await fs.writeFile(path.join(workDir, 'events.ndjson'), lines.join('\n') + '\n');
      return run('bash', [script], { cwd: workDir, env: environment() });
    };

    const first = await send();
    expect(first.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^curl-120 code: /)]);
    expect((await countedEvents()).length).toBe(before + 149);

    // A rerun sends the same batches under the same keys: the answers are replayed and nothing is stored again.
    const second = await send();
    expect(second.stdout).toBe(first.stdout);
    expect((await countedEvents()).length).toBe(before + 149);
  });
});
