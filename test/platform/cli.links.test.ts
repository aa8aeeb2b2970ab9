import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, killTransient, runCli } from '../helpers/cli.ts';
import { createCustomer, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';

/**
 * `billing run` from cron (the README's way to bill) e-mails customers as the server does, links included: the
 * command reads PUBLIC_URL (docs/portal.md, "PUBLIC_URL and links"). Without it the run says so once in its log, and
 * its e-mails ask the customer to reply instead of pointing at a page that is not there. The CLI queues the mail;
 * the test service's mail worker, on the same database, delivers it to a real SMTP receiver.
 */
const t = useTestService({ smtp: true });
const { smtp } = t;
afterEach(killTransient);
afterAll(async () => {
  await killAll();
});

let shops = 0;

/**
 * A live account with an invoice due today for each customer, one for every kind of e-mail a run sends a customer:
 * Ada's card asks her to confirm (3-D Secure), Ben has no card, Cy's card is declined (insufficient funds), Dee pays
 * by EFT and is reminded a week after the due date, Eve's card is charged (a receipt, which has no link).
 */
async function shop() {
  const as = await t.newAccount(`Cron shop ${++shops}`, { timeZone: 'UTC' });
  const today = new Date().toISOString().slice(0, 10);
  const customer = async (name: string, paymentMethod = 'credit_card', daysLate = 0) => {
    const email = `${name.toLowerCase()}${shops}.${as.accountId}@example.com`;
    const id = await createCustomer(as, { Name: name, Email: email, PaymentMethod: paymentMethod });
    const invoice = await ok(as, 'POST', '/v1/invoices', {
      customerID: id,
      InvoiceDate: daysBefore(today, daysLate + 3),
      DueDate: daysBefore(today, daysLate),
      Charges: [{ Descrip: 'Hosting', Qty: 1, UnitCostEx: 25 }],
    });
    return { id, email, invoiceNum: invoice.invoiceNum as number };
  };
  const ada = await customer('Ada');
  await addCard(as, ada.id, '4000002500003155');
  const ben = await customer('Ben');
  const cy = await customer('Cy');
  await addCard(as, cy.id, '4000000000009995');
  const dee = await customer('Dee', 'eft', 7);
  const eve = await customer('Eve');
  await addCard(as, eve.id, '4242424242424242');
  return { as, ada, ben, cy, dee, eve };
}

const daysBefore = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) - days * 86_400_000).toISOString().slice(0, 10);

const LINK = /https?:\/\/\S+/g;

describe('billing run e-mails', () => {
  it('link to the pages they name when PUBLIC_URL is set, and each link opens its page', async () => {
    const { as, ada, ben, cy, dee, eve } = await shop();
    const run = await runCli(['run', '--account', String(as.accountId), '--json'], {
      ...t.env,
      PUBLIC_URL: t.url,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('PUBLIC_URL is not set');

    const [confirm] = await deliveredTo(t, smtp, as.accountId, ada.email);
    expect(confirm!.subject).toContain(`Please confirm your payment of invoice ${ada.invoiceNum}`);
    expect(confirm!.text).toContain('confirm the payment on the page below');
    const [needsCard] = await deliveredTo(t, smtp, as.accountId, ben.email);
    expect(needsCard!.subject).toContain(`Invoice ${ben.invoiceNum} from`);
    expect(needsCard!.subject).toContain('we need a payment method');

    const [failed] = await deliveredTo(t, smtp, as.accountId, cy.email);
    expect(failed!.subject).toContain(`Payment of invoice ${cy.invoiceNum} to`);
    const [reminder] = await deliveredTo(t, smtp, as.accountId, dee.email);
    expect(reminder!.text).toContain(`${dee.invoiceNum}`);
    const [receipt] = await deliveredTo(t, smtp, as.accountId, eve.email);
    expect(receipt!.subject).toContain('Receipt from');
    expect(receipt!.text.match(LINK)).toBeNull();

    for (const [mail, invoiceNum] of [
      [confirm!, ada.invoiceNum],
      [needsCard!, ben.invoiceNum],
      [failed!, cy.invoiceNum],
      [reminder!, dee.invoiceNum],
    ] as const) {
      const links = mail.text.match(LINK) ?? [];
      expect(links, mail.subject).toHaveLength(1);
      expect(links[0]!.startsWith(`${t.url}/pay/`), links[0]).toBe(true);
      const page = await fetch(links[0]!);
      expect(page.status, links[0]).toBe(200);
      expect(await page.text()).toContain(`Invoice ${invoiceNum}`);
    }
  });

  it('without PUBLIC_URL ask for a reply instead of a page, and the run says so once', async () => {
    const { as, ada, ben, cy, dee } = await shop();
    const env = { ...t.env };
    delete env.PUBLIC_URL;
    const run = await runCli(['run', '--account', String(as.accountId), '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.match(/PUBLIC_URL is not set/g)).toHaveLength(1);

    const [confirm] = await deliveredTo(t, smtp, as.accountId, ada.email);
    const [needsCard] = await deliveredTo(t, smtp, as.accountId, ben.email);
    const [failed] = await deliveredTo(t, smtp, as.accountId, cy.email);
    const [reminder] = await deliveredTo(t, smtp, as.accountId, dee.email);
    for (const mail of [confirm!, needsCard!, failed!, reminder!]) {
      expect(mail.text.match(LINK), mail.subject).toBeNull();
    }
    expect(confirm!.text).toContain(
      'We will not try again without you. Please reply to this e-mail, or reach us as below, and we will tell you how to pay.',
    );
    expect(confirm!.text).not.toContain('page below');
  });
});
