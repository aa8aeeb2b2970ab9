/**
 * The bill-run benchmark's population: an account, its tax and catalogue, and BENCH_SUBSCRIPTIONS subscriptions due
 * on AS_OF, in cohorts of what the run makes for them.
 */
import crypto from 'node:crypto';
import { pino } from 'pino';
import { billingContext } from '../../src/billing/billRun.ts';
import type { BillingDeps } from '../../src/billing/billRun.ts';
import { fixedClock, systemClock } from '../../src/clock.ts';
import type { ServiceContext } from '../../src/context.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import {
  createComponent,
  createPackage,
  createPackageGroup,
  createTaxSetting,
} from '../../src/modules/catalogue/index.ts';
import type { Package } from '../../src/modules/catalogue/index.ts';
import { createCustomer } from '../../src/modules/customers/index.ts';
import { createSubscription } from '../../src/modules/subscriptions/index.ts';
import type { ComponentChoice } from '../../src/modules/subscriptions/index.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import type { Db } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { BenchError, analyzeSeeded } from '../common.ts';
import { countWhere, insertReturningIds, insertRows, loose } from './rows.ts';
import type { Row } from './rows.ts';
import { modulePorts } from '../../src/modulePorts.ts';

/** The due day of every subscription, and the instants the population was made at (UTC account). */
export const AS_OF = '2026-03-01';
const AT_SETUP = '2026-01-15T09:00:00.000Z';
/** The usage cohort started on Feb 1 with a month's free trial; its first paid invoice (with usage) is due Mar 1. */
const AT_USAGE_COHORT = '2026-02-01T09:00:00.000Z';
const USAGE_COHORT_START = '2026-02-01';
/** The other cohorts were signed up on Feb 20 to start on Mar 1. */
const AT_NEW_COHORTS = '2026-02-20T09:00:00.000Z';

const withoutId = ({ id: _id, ...rest }: Row): Row => rest;

/**
 * The copies are made through the day after their template (n seconds later, within 10 hours: the same day in UTC),
 * as sign-ups are, so that nothing per subscription (e.g. the day it was created on) is the same for all of them.
 */
function later(instant: unknown, n: number): string {
  return new Date(Date.parse(String(instant)) + (n % 36_000) * 1000).toISOString();
}

interface Cohort {
  key: string;
  /** Out of 20 subscriptions. */
  weight: number;
  packageKey: 'basic' | 'pro' | 'team' | 'starter' | 'metered';
  createdAt: string;
  startDate: string;
  withComponents: boolean;
  /** Invoices and invoice lines the bill run makes on AS_OF per subscription. */
  invoices: number;
  lines: number;
}

const COHORTS: Cohort[] = [
  // 9.99 a month: one line.
  {
    key: 'basic',
    weight: 8,
    packageKey: 'basic',
    createdAt: AT_NEW_COHORTS,
    startDate: AS_OF,
    withComponents: false,
    invoices: 1,
    lines: 1,
  },
  // 29.00 a month and a 10.00 setup fee: two lines.
  {
    key: 'setupFee',
    weight: 3,
    packageKey: 'pro',
    createdAt: AT_NEW_COHORTS,
    startDate: AS_OF,
    withComponents: false,
    invoices: 1,
    lines: 1 + 1,
  },
  // A 14-day trial at 1.00: the trial line now, the first term on Mar 15.
  {
    key: 'paidTrial',
    weight: 2,
    packageKey: 'team',
    createdAt: AT_NEW_COHORTS,
    startDate: AS_OF,
    withComponents: false,
    invoices: 1,
    lines: 1,
  },
  // A free 14-day trial: the period is recorded, no invoice is made.
  {
    key: 'freeTrial',
    weight: 2,
    packageKey: 'starter',
    createdAt: AT_NEW_COHORTS,
    startDate: AS_OF,
    withComponents: false,
    invoices: 0,
    lines: 0,
  },
  // A free month's trial from Feb 1 (billed then: a period, no invoice) with two components whose usage was
  // recorded in February: on Mar 1 the first term and the usage of both components, priced by brackets.
  {
    key: 'usage',
    weight: 5,
    packageKey: 'metered',
    createdAt: AT_USAGE_COHORT,
    startDate: USAGE_COHORT_START,
    withComponents: true,
    invoices: 1,
    lines: 1 + 2,
  },
];
const COHORT_CYCLE = COHORTS.flatMap((cohort) => Array.from({ length: cohort.weight }, () => cohort));

/** Which cohort, and whether the customer has autoSendInvoice on, for the i-th subscription. */
function shapeOf(i: number, autoSendPercent: number): { cohort: Cohort; autoSend: boolean } {
  const cohort = COHORT_CYCLE[i % COHORT_CYCLE.length]!;
  // Spread over every cohort: the share of whole cycles of 20 that falls under the percentage.
  const cycle = Math.floor(i / COHORT_CYCLE.length);
  const autoSend = cycle % 100 < autoSendPercent;
  return { cohort, autoSend };
}

interface Template {
  customer: Row;
  subscription: Row;
  components: Row[];
  usage: Row[];
  periods: Row[];
}

export interface Seeded {
  accountId: number;
  subscriptions: number;
  expectedInvoices: number;
  expectedLines: number;
  expectedMails: number;
  /** Largest ids before the bill run: what lies above them, the run wrote (event ids sort in the order written). */
  before: { periodId: number; mailId: number; eventId: string };
}

async function maxId(db: Db, table: string): Promise<number> {
  const row = (await loose(db)
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('m'))
    .executeTakeFirst()) as { m: number | string | null } | undefined;
  return Number(row?.m ?? 0);
}

async function maxEventId(db: Db): Promise<string> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('id').as('m'))
    .executeTakeFirst();
  return row?.m ?? '';
}

/**
 * A fresh account with a tax, a catalogue and `count` subscriptions due on AS_OF. The account, the tax setting, the
 * catalogue, and one customer and subscription per cohort (and autoSendInvoice value) are made by the service's own
 * use cases; the rest are copies of those rows (customer, subscription, its components, usage and periods), written
 * with multi-row inserts: rows exactly as createSubscription (and, for the usage cohort, its first billing) made them.
 */
export async function seed(db: Db, count: number, autoSendPercent: number): Promise<Seeded> {
  await migrateToLatest(db);
  const deps: BillingDeps = {
    ports: modulePorts(),
    db,
    clock: fixedClock(AT_SETUP),
    wallClock: systemClock,
    log: pino({ level: 'warn' }, pino.destination(2)),
    secrets: createSecretBox(crypto.randomBytes(32)),
    mailQueued: () => {},
  };
  const { account } = await createAccount(
    db,
    deps,
    { name: 'Bench billing' },
    { testGatewayOnLiveAccounts: true },
  );
  const at = (instant: string): ServiceContext => billingContext(deps, account, instant);
  const setup = at(AT_SETUP);

  await createTaxSetting(setup, { name: 'VAT', rules: [{ perc: 0.15 }] });
  const group = await createPackageGroup(setup, 'Plans');
  const makePackage = (
    code: string,
    chargePrice: number,
    rate: { setupFee?: number; trialFee?: number; trialPeriod?: number; trialPeriodType?: string } = {},
  ) =>
    createPackage(
      setup,
      { packageGroupId: group.id, packageCode: code, name: code, isActive: true },
      {
        versionName: 'Standard',
        isActive: true,
        isDefault: true,
        rates: [
          {
            currencyCode: 'USD',
            setupFee: rate.setupFee ?? 0,
            trialFee: rate.trialFee ?? 0,
            trialPeriod: rate.trialPeriod ?? 0,
            trialPeriodType: rate.trialPeriodType ?? 'days',
            terms: [
              { chargePrice, chargeTerm: 1, chargeTermType: 'months' },
              { chargePrice: chargePrice * 10, chargeTerm: 12, chargeTermType: 'months' },
            ],
          },
        ],
      },
    );
  const packages: Record<Cohort['packageKey'], Package> = {
    basic: await makePackage('Basic', 9.99),
    pro: await makePackage('Pro', 29, { setupFee: 10 }),
    team: await makePackage('Team', 99, { trialFee: 1, trialPeriod: 14 }),
    starter: await makePackage('Starter', 19, { trialPeriod: 14 }),
    metered: await makePackage('Metered', 5, { trialPeriod: 1, trialPeriodType: 'months' }),
  };
  const makeComponent = (
    code: string,
    name: string,
    kind: Pick<Parameters<typeof createComponent>[1], 'type' | 'scheme' | 'unitName'>,
    brackets: { price: string; qtyFrom: number; qtyTill: number | null }[],
  ) =>
    createComponent(
      setup,
      { componentCode: code, name, ...kind, packageGroupId: group.id, term: 1, termType: 'months' },
      { versionName: 'Launch', currencies: [{ currencyCode: 'USD', brackets }] },
    );
  const sms = await makeComponent('SMS', 'SMS', { type: 'quantity', scheme: 'unit', unitName: 'messages' }, [
    { price: '0.10', qtyFrom: 1, qtyTill: 1000 },
    { price: '0.05', qtyFrom: 1001, qtyTill: null },
  ]);
  const storage = await makeComponent(
    'STORAGE',
    'Storage',
    { type: 'metered', scheme: 'volume', unitName: 'GB' },
    [
      { price: '2.00', qtyFrom: 1, qtyTill: 10 },
      { price: '1.50', qtyFrom: 11, qtyTill: 100 },
      { price: '1.00', qtyFrom: 101, qtyTill: null },
    ],
  );
  const components: ComponentChoice[] = [
    { componentId: sms.id, numUnits: 1234 },
    { componentId: storage.id, numUnits: '37.5' },
  ];

  /** A row as it was made, without its id. */
  const rowOf = async (table: string, id: number) =>
    withoutId(
      (await loose(db).selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as Row,
    );

  // One customer and subscription per cohort and autoSendInvoice value, through the use cases.
  const templates = new Map<string, Template>();
  for (const cohort of COHORTS) {
    for (const autoSend of [false, true]) {
      const customer = await createCustomer(setup, {
        name: `Template ${cohort.key}${autoSend ? ' (auto-send)' : ''}`,
        email: 'billing@example.com',
        autoSendInvoice: autoSend,
      });
      const pkg = packages[cohort.packageKey];
      const version = pkg.versions[0]!;
      const subscription = await createSubscription(at(cohort.createdAt), {
        customerId: customer.id,
        packageId: pkg.id,
        packageRateTermId: version.rates[0]!.terms[0]!.id,
        startDate: cohort.startDate,
        components: cohort.withComponents ? components : [],
      });
      const read = (table: string) =>
        loose(db)
          .selectFrom(table)
          .selectAll()
          .where('subscription_id', '=', subscription.id)
          .orderBy('id')
          .execute() as Promise<Row[]>;
      templates.set(`${cohort.key}/${autoSend}`, {
        customer: await rowOf('customers', customer.id),
        subscription: await rowOf('subscriptions', subscription.id),
        components: (await read('subscription_components')).map(withoutId),
        usage: (await read('subscription_usage')).map(withoutId),
        periods: (await read('subscription_periods')).map(withoutId),
      });
      const due = templates.get(`${cohort.key}/${autoSend}`)!.subscription.next_inv_date;
      if (due !== AS_OF)
        throw new BenchError(`cohort ${cohort.key}: next_inv_date ${String(due)}, not ${AS_OF}`);
    }
  }
  const templateInvoices = await countWhere(db, 'invoices');
  if (templateInvoices !== 0) throw new BenchError(`setup made ${templateInvoices} invoices; expected none`);

  // The rest, copied in chunks of 500 subscriptions, one transaction each.
  let expectedInvoices = 0;
  let expectedLines = 0;
  let expectedMails = 0;
  const shapes: { cohort: Cohort; autoSend: boolean }[] = [];
  for (const cohort of COHORTS) for (const autoSend of [false, true]) shapes.push({ cohort, autoSend });
  const copies = count - shapes.length;
  if (copies < 0) throw new BenchError(`BENCH_SUBSCRIPTIONS must be at least ${shapes.length}`);
  const tally = (shape: { cohort: Cohort; autoSend: boolean }) => {
    expectedInvoices += shape.cohort.invoices;
    expectedLines += shape.cohort.lines;
    if (shape.autoSend) expectedMails += shape.cohort.invoices;
  };
  shapes.forEach(tally);
  const CHUNK = 500;
  for (let from = 0; from < copies; from += CHUNK) {
    const batch = Array.from({ length: Math.min(CHUNK, copies - from) }, (_, k) => {
      const shape = shapeOf(from + k, autoSendPercent);
      tally(shape);
      return { n: from + k, template: templates.get(`${shape.cohort.key}/${shape.autoSend}`)! };
    });
    await db.transaction().execute(async (trx) => {
      const customerIds = await insertReturningIds(
        trx,
        'customers',
        batch.map(({ n, template }) => ({
          ...template.customer,
          name: `Customer ${n + 1}`,
          created_at: later(template.customer.created_at, n),
          updated_at: later(template.customer.updated_at, n),
        })),
      );
      const subscriptionIds = await insertReturningIds(
        trx,
        'subscriptions',
        batch.map(({ n, template }, k) => ({
          ...template.subscription,
          customer_id: customerIds[k],
          created_at: later(template.subscription.created_at, n),
          updated_at: later(template.subscription.updated_at, n),
        })),
      );
      const children = (key: 'components' | 'usage' | 'periods') =>
        batch.flatMap(({ template }, k) =>
          template[key].map((row) => ({ ...row, subscription_id: subscriptionIds[k] })),
        );
      await insertRows(trx, 'subscription_components', children('components'));
      await insertRows(trx, 'subscription_usage', children('usage'));
      await insertRows(trx, 'subscription_periods', children('periods'));
    });
  }
  await analyzeSeeded(db);
  return {
    accountId: account.id,
    subscriptions: count,
    expectedInvoices,
    expectedLines,
    expectedMails,
    before: {
      periodId: await maxId(db, 'subscription_periods'),
      mailId: await maxId(db, 'mail_outbox'),
      eventId: await maxEventId(db),
    },
  };
}
