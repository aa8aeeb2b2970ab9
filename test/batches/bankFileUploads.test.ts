import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  ACH_ORIGINATOR,
  SEPA_CREDITOR,
  achAccount,
  addBankFileGateway,
  debtorLines,
  nachaReturnFile,
  openBatch,
  pain002,
  readPain008,
  sepaAccount,
  submitAndBuild,
} from './bankFileFixtures.ts';
import { advanceTo, debitAccount } from './fixtures.ts';

// The bank's files uploaded as they came from the bank (docs/gateways.md, "The bankfile gateway"): a pain.002 as
// application/xml, a NACHA return file as text/plain, beside the JSON form {"document": ...}.

const t = useTestService();

/** A two-line batch of a bankfile gateway on `rail`, built, its file downloaded, and processing since today. */
async function processingBatch(rail: 'sepa' | 'ach') {
  const setup = await debitAccount(t, rail === 'sepa' ? 'EUR' : 'USD');
  const currency = rail === 'sepa' ? 'EUR' : 'USD';
  const gateway = await addBankFileGateway(t, setup, rail === 'sepa' ? SEPA_CREDITOR : ACH_ORIGINATOR);
  const token = await openBatch(setup, gateway.gatewayToken, currency);
  const debtors =
    rail === 'sepa'
      ? [
          sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'),
          sepaAccount('Anna Gruber', 'AT611904300234573201', 'BKAUATWW'),
        ]
      : [achAccount('Grace Hopper', '000123456789'), achAccount('Alan Turing', '987654321')];
  const lines = await debtorLines(
    setup,
    gateway.gatewayId,
    token,
    currency,
    debtors.map((details) => ({ details, amount: 50 })),
  );
  const actionDate = await submitAndBuild(setup, token, rail);
  const file = await setup.account.request('GET', `/v1/batches/${token}/file`);
  expect(file.status, file.text).toBe(200);
  await advanceTo(setup.account, actionDate);
  expect((await ok(setup.account, 'GET', `/v1/batches/${token}`)).State).toBe('processing');
  return { account: setup.account, token, lines, file: file.text };
}

const paymentStatus = async (account: TestAccount, id: number) =>
  (await ok(account, 'GET', `/v1/payments/${id}`)).Status;

describe("the bank's returns sent as the file itself", () => {
  it('takes a pain.002 as application/xml (byte-order mark and all) and as text/xml', async () => {
    const { account, token, lines, file } = await processingBatch('sepa');
    const messageId = readPain008(file).GrpHdr.MsgId as string;
    const [rejected, settled] = lines as [(typeof lines)[0], (typeof lines)[0]];
    const report = pain002(messageId, [
      { endToEndId: String(rejected.paymentId), status: 'RJCT', reasonCode: 'AM04' },
      { endToEndId: String(settled.paymentId), status: 'ACSC' },
    ]);
    const res = await account.request('POST', `/v1/batches/${token}/returns`, {
      rawBody: `\uFEFF${report}`,
      headers: { 'content-type': 'application/xml; charset=utf-8' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ Returned: 1, Settled: 1, Unchanged: 0, Mismatched: [] });
    expect(await paymentStatus(account, rejected.paymentId)).toBe('Failed');
    expect(await paymentStatus(account, settled.paymentId)).toBe('Allocated');

    const again = await account.request('POST', `/v1/batches/${token}/returns`, {
      rawBody: report,
      headers: { 'content-type': 'text/xml' },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({ Returned: 0, Settled: 0, Unchanged: 2, Mismatched: [] });
  });

  it('takes a NACHA return file as text/plain', async () => {
    const { account, token, lines, file } = await processingBatch('ach');
    const [returned, kept] = lines as [(typeof lines)[0], (typeof lines)[0]];
    const res = await account.request('POST', `/v1/batches/${token}/returns`, {
      rawBody: nachaReturnFile(file, [{ paymentId: returned.paymentId, code: 'R01' }]),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ Returned: 1, Settled: 0, Unchanged: 0, Mismatched: [] });
    expect(await paymentStatus(account, returned.paymentId)).toBe('Failed');
    expect(await paymentStatus(account, kept.paymentId)).toBe('Pending');
  });

  it('names document for an empty or NUL-holding file, and refuses the wrong file as in JSON', async () => {
    const { account, token, lines, file } = await processingBatch('sepa');
    const upload = (rawBody: string, contentType: string) =>
      account.request('POST', `/v1/batches/${token}/returns`, {
        rawBody,
        headers: { 'content-type': contentType },
      });
    const empty = await upload(' \n', 'application/xml');
    expect(empty.status, empty.text).toBe(422);
    expect(empty.body.fields).toEqual([{ field: 'document', message: 'must not be empty' }]);
    const messageId = readPain008(file).GrpHdr.MsgId as string;
    const withNul = pain002(messageId, [{ endToEndId: `${lines[0]!.paymentId}\u0000`, status: 'ACSC' }]);
    const nul = await upload(withNul, 'application/xml');
    expect(nul.status, nul.text).toBe(422);
    expect(nul.body.fields.map((f: { field: string }) => f.field)).toEqual(['document']);
    // What is in the file decides how it is read: NACHA text is no answer to a SEPA batch.
    const nacha = await upload(`101${' '.repeat(91)}\n`, 'text/plain');
    expect(nacha.status, nacha.text).toBe(422);
    expect(nacha.body.fields).toEqual([
      { field: 'document', message: expect.stringContaining('not an ach batch') },
    ]);
    // Another media type is not taken.
    const binary = await upload(pain002(messageId, []), 'application/octet-stream');
    expect(binary.status, binary.text).toBe(415);
    for (const line of lines) expect(await paymentStatus(account, line.paymentId)).toBe('Pending');
  });

  it('has the JSON form’s body limit, and no other route takes such bodies', async () => {
    const { account, token } = await processingBatch('sepa');
    // The suite's service runs with the default limit of 1 MiB.
    const huge = `<Document>${' '.repeat(1_100_000)}</Document>`;
    const raw = await account.request('POST', `/v1/batches/${token}/returns`, {
      rawBody: huge,
      headers: { 'content-type': 'application/xml' },
    });
    expect(raw.status, raw.text.slice(0, 300)).toBe(413);
    const wrapped = await account.request('POST', `/v1/batches/${token}/returns`, {
      body: { document: huge },
    });
    expect(wrapped.status, wrapped.text.slice(0, 300)).toBe(413);
    const customer = await account.request('POST', '/v1/customers', {
      rawBody: 'Name=Jan',
      headers: { 'content-type': 'text/plain' },
    });
    expect(customer.status, customer.text).toBe(415);
  });

  it('is described in the OpenAPI document', async () => {
    const res = await t.request('GET', '/openapi.json', { auth: false });
    expect(res.status).toBe(200);
    const operation = res.body.paths['/v1/batches/{BatchToken}/returns'].post;
    expect(Object.keys(operation.requestBody.content).sort()).toEqual([
      'application/json',
      'application/xml',
      'text/plain',
      'text/xml',
    ]);
    expect(operation.requestBody.content['text/plain'].schema.type).toBe('string');
    expect(operation.description).toMatch(/application\/xml.*text\/plain/s);
  });
});
