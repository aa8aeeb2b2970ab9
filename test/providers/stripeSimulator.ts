import crypto from 'node:crypto';
import Stripe from 'stripe';
import { checkRequest, checkResponse } from './openApi.ts';
import type { ProviderApi } from './openApi.ts';
import { loadStripeApi } from './stripeApi.ts';
import { brandOf, MESSAGES, passesLuhn, TEST_CARDS, TEST_PAYMENT_METHODS } from './stripeSimulatorCards.ts';
import type {
  CardError,
  CustomerRecord,
  DisputeRecord,
  IntentRecord,
  PaymentMethodRecord,
  RefundRecord,
} from './stripeSimulatorObjects.ts';
import {
  customerJson,
  disputeJson,
  intentJson,
  listJson,
  parseForm,
  paymentMethodJson,
  refundJson,
  sampleOf,
  searchJson,
} from './stripeSimulatorObjects.ts';

/**
 * Stripe, in process, for the driver's tests: a `fetch` the official SDK's fetch client calls. Every request is
 * checked against Stripe's OpenAPI document (spec3, amended by test/providers/stripeApi.ts with what Stripe's
 * changelog added since) and refused with Stripe's 400 when it does not fit; every answer is Stripe's own sample
 * object (fixtures3.json) with the simulator's values, checked against the document's response schema. Outcomes
 * follow Stripe's documented test cards. Nothing leaves the process.
 */

interface Answer {
  status: number;
  body: Record<string, unknown>;
}
interface Call {
  method: string;
  path: string;
  params: Record<string, unknown>;
  publishable: boolean;
}
type Route = (call: Call, match: RegExpExecArray) => Answer;

const DAY_SECONDS = 86_400;
const fail = (status: number, error: Record<string, unknown>): Answer => ({ status, body: { error } });
const invalid = (message: string, code = 'parameter_invalid', param?: string) =>
  fail(400, { type: 'invalid_request_error', code, message, ...(param ? { param } : {}) });
const missing = (what: string, id: string) =>
  fail(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}: '${id}'` });

export class StripeSimulator {
  readonly secretKey = 'sk_test_simulator0000000000';
  readonly publishableKey = 'pk_test_simulator0000000000';
  readonly webhookSecret = 'whsec_simulator0000000000';
  /** The settings of a Stripe gateway that reaches this simulator: its keys. */
  get gatewaySettings(): { secretKey: string; publishableKey: string; webhookSecret: string } {
    return {
      secretKey: this.secretKey,
      publishableKey: this.publishableKey,
      webhookSecret: this.webhookSecret,
    };
  }
  /** Requests the document refused, with its problems: a test of a wrong request reads them. */
  readonly refused: { operation: string; problems: string[] }[] = [];
  /** Answers that do not fit the document's response schema: must stay empty. */
  readonly answerProblems: string[] = [];
  /** Every event Stripe would send, oldest first. */
  readonly events: Record<string, unknown>[] = [];
  /** The simulator's clock (Stripe's `created`, idempotency keys' 24 hours): seconds since the epoch. */
  nowSeconds = 1_795_000_000;
  /** The next refund's first status: card refunds are often `pending` for days. */
  nextRefundStatus: RefundRecord['status'] = 'succeeded';

  readonly customers = new Map<string, CustomerRecord>();
  readonly paymentMethods = new Map<string, PaymentMethodRecord>();
  readonly intents = new Map<string, IntentRecord>();
  readonly refunds = new Map<string, RefundRecord>();
  readonly disputes = new Map<string, DisputeRecord>();
  private readonly idempotent = new Map<string, { fingerprint: string; at: number; answer: Answer }>();
  private readonly answersLost: string[] = [];
  private readonly failures: { operation: string; answer: Answer }[] = [];
  private readonly signer = new Stripe('sk_test_signer');

  private constructor(private readonly api: ProviderApi) {}

  static async start(): Promise<StripeSimulator> {
    return new StripeSimulator(await loadStripeApi());
  }

  /** The `fetch` the driver is given. */
  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(new Headers(init?.headers));
    const bodyText = typeof init?.body === 'string' ? init.body : '';
    let answer: Answer;
    try {
      answer = this.answer(method, url, headers, bodyText);
    } catch (error) {
      // A fault of the simulator itself shows as one, never as a lost connection.
      this.answerProblems.push(`simulator fault on ${method} ${url.pathname}: ${(error as Error).stack}`);
      answer = fail(500, { type: 'api_error', message: 'the simulator failed' });
    }
    const lost = this.answersLost.findIndex((operation) => operation === `${method} ${url.pathname}`);
    if (lost >= 0) {
      this.answersLost.splice(lost, 1);
      // The request was made; its answer never comes: wait until the client gives up (its timeout aborts).
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason));
      });
    }
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json', 'request-id': `req_${this.nextId()}` },
    });
  };

  /** The next `METHOD /path` request is carried out, and its answer lost on the way back. */
  loseNextAnswer(operation: string): void {
    this.answersLost.push(operation);
  }

  /** The next `METHOD /path` request is refused with this error (Stripe's own trouble, a rate limit). */
  failNext(operation: string, status: number, error: Record<string, unknown>): void {
    this.failures.push({ operation, answer: fail(status, error) });
  }

  /** Moves the simulator's clock on (idempotency keys are forgotten after 24 hours). */
  advanceHours(hours: number): void {
    this.nowSeconds += hours * 3600;
  }

  private answer(method: string, url: URL, headers: Record<string, string>, bodyText: string): Answer {
    const problems = checkRequest(this.api, {
      method,
      url: url.pathname + url.search,
      headers,
      body: bodyText,
    });
    const operation = `${method} ${url.pathname}`;
    if (problems.length > 0) {
      this.refused.push({ operation, problems: problems.map(String) });
      return invalid(
        `Received unknown or invalid parameters: ${problems.map(String).join('; ')}`,
        'parameter_unknown',
      );
    }
    const key = (headers.authorization ?? '').replace(/^Bearer /, '');
    const publishable = key === this.publishableKey;
    if (key !== this.secretKey && !publishable) {
      return fail(401, {
        type: 'invalid_request_error',
        message: `Invalid API Key provided: ${key.slice(0, 8)}***`,
      });
    }
    const failure = this.failures.findIndex((each) => each.operation === operation);
    const answerOf = (call: Call) =>
      failure >= 0 ? this.failures.splice(failure, 1)[0]!.answer : this.route(call);
    const params = method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(bodyText);
    const call = { method, path: url.pathname, params, publishable };
    const idempotencyKey = headers['idempotency-key'];
    const answer = idempotencyKey
      ? this.onceUnder(`${key} ${idempotencyKey}`, call, bodyText, answerOf)
      : answerOf(call);
    const answerProblems = checkResponse(
      this.api,
      `${method} ${this.templateOf(url.pathname)}`,
      answer.status,
      answer.body,
    );
    this.answerProblems.push(...answerProblems.map((p) => `${operation} ${answer.status}: ${String(p)}`));
    return answer;
  }

  /** Stripe's idempotency: the same key and request answer the first answer for 24 hours. */
  private onceUnder(key: string, call: Call, bodyText: string, answerOf: (call: Call) => Answer): Answer {
    const fingerprint = `${call.method} ${call.path} ${bodyText}`;
    const earlier = this.idempotent.get(key);
    if (earlier && this.nowSeconds - earlier.at < DAY_SECONDS) {
      if (earlier.fingerprint === fingerprint) return earlier.answer;
      return fail(400, {
        type: 'idempotency_error',
        message:
          'Keys for idempotent requests can only be used with the same parameters they were first used with.',
      });
    }
    const answer = answerOf(call);
    // NOTE: Stripe keeps no answer for a request refused before it ran (a 400); such a key may be used again.
    if (answer.status !== 400) this.idempotent.set(key, { fingerprint, at: this.nowSeconds, answer });
    return answer;
  }

  private readonly routes: [string, RegExp, Route][] = [
    ['POST', /^\/v1\/customers$/, (c) => this.createCustomer(c)],
    ['GET', /^\/v1\/customers\/search$/, (c) => this.search(c, 'customers')],
    ['POST', /^\/v1\/payment_methods$/, (c) => this.createPaymentMethod(c)],
    ['POST', /^\/v1\/setup_intents$/, (c) => this.createIntent(c, 'setup')],
    ['POST', /^\/v1\/payment_intents$/, (c) => this.createIntent(c, 'payment')],
    ['GET', /^\/v1\/payment_intents\/search$/, (c) => this.search(c, 'payment_intents')],
    ['GET', /^\/v1\/payment_intents$/, () => ({ status: 200, body: listJson('/v1/payment_intents', []) })],
    ['GET', /^\/v1\/(setup|payment)_intents\/([^/]+)$/, (c, m) => this.showIntent(c, m[2]!)],
    ['POST', /^\/v1\/(setup|payment)_intents\/([^/]+)\/confirm$/, (c, m) => this.confirmIntent(c, m[2]!)],
    ['POST', /^\/v1\/refunds$/, (c) => this.createRefund(c)],
  ];

  private route(call: Call): Answer {
    for (const [method, pattern, route] of this.routes) {
      const match = pattern.exec(call.path);
      if (method === call.method && match) {
        // Stripe.js, with the publishable key, makes PaymentMethods, confirms intents, and retrieves an intent by
        // its client secret (Stripe's API reference, "Retrieve a SetupIntent": client-side with the client secret).
        const browserSide =
          call.path === '/v1/payment_methods' ||
          call.path.endsWith('/confirm') ||
          (call.method === 'GET' &&
            /_intents\/[^/]+$/.test(call.path) &&
            call.params.client_secret !== undefined);
        const secretOnly = !browserSide;
        if (call.publishable && secretOnly) {
          return fail(401, {
            type: 'invalid_request_error',
            message: 'This API call cannot be made with a publishable API key.',
          });
        }
        return route(call, match);
      }
    }
    return fail(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${call.method}: ${call.path})`,
    });
  }

  /** The document's path template of a path: `/v1/payment_intents/{intent}`. */
  private templateOf(path: string): string {
    return path
      .replace(/^\/v1\/(setup_intents|payment_intents)\/(?!search)[^/]+/, '/v1/$1/{intent}')
      .replace(/^\/v1\/customers\/(?!search)[^/]+/, '/v1/customers/{customer}');
  }

  private nextId(): string {
    return crypto.randomBytes(12).toString('base64url').replace(/[-_]/g, 'x');
  }

  private createCustomer({ params }: Call): Answer {
    const customer: CustomerRecord = {
      id: `cus_${this.nextId()}`,
      name: (params.name as string | undefined) ?? null,
      email: (params.email as string | undefined) ?? null,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      created: this.nowSeconds,
    };
    this.customers.set(customer.id, customer);
    return { status: 200, body: customerJson(customer) };
  }

  /** Stripe's search query language, as far as the driver uses it: `metadata['k']:'v'` clauses joined by AND. */
  private search({ params, path }: Call, resource: 'customers' | 'payment_intents'): Answer {
    const clauses = [...String(params.query).matchAll(/metadata\['([^']+)'\]:'((?:[^'\\]|\\.)*)'/g)].map(
      ([, key, value]) => [key!, value!.replace(/\\(.)/g, '$1')] as const,
    );
    const fits = (metadata: Record<string, string>) =>
      clauses.every(([key, value]) => metadata[key] === value);
    const data =
      resource === 'customers'
        ? [...this.customers.values()].filter((c) => fits(c.metadata)).map(customerJson)
        : [...this.intents.values()]
            .filter((i) => i.kind === 'payment' && fits(i.metadata))
            .map((i) => intentJson(i, this.paymentMethods.get(i.paymentMethod ?? ''), false));
    return { status: 200, body: searchJson(path, data) };
  }

  /** A card the browser's Stripe.js sends (with the publishable key), or one of Stripe's test PaymentMethods. */
  private createPaymentMethod({ params }: Call): Answer {
    const card = params.card as Record<string, string>;
    if (!passesLuhn(card.number ?? '')) {
      return fail(402, {
        type: 'card_error',
        code: 'incorrect_number',
        message: 'Your card number is incorrect.',
      });
    }
    const pm = this.paymentMethodFor(card.number!, Number(card.exp_month), Number(card.exp_year));
    return { status: 200, body: paymentMethodJson(pm) };
  }

  private paymentMethodFor(number: string, expMonth: number, expYear: number): PaymentMethodRecord {
    const pm: PaymentMethodRecord = {
      id: `pm_${this.nextId()}`,
      brand: brandOf(number),
      last4: number.slice(-4),
      expMonth,
      expYear,
      behaviour: TEST_CARDS[number] ?? {},
      customer: null,
      setUp: false,
      created: this.nowSeconds,
    };
    this.paymentMethods.set(pm.id, pm);
    return pm;
  }

  /** A PaymentMethod named in a request: one the simulator made, or a fresh copy of a Stripe test one. */
  private paymentMethodNamed(id: string): PaymentMethodRecord | undefined {
    const testNumber = TEST_PAYMENT_METHODS[id];
    if (testNumber) return this.paymentMethodFor(testNumber, 12, 2034);
    return this.paymentMethods.get(id);
  }

  private createIntent(call: Call, kind: 'setup' | 'payment'): Answer {
    const { params } = call;
    const customer = params.customer as string | undefined;
    if (customer && !this.customers.has(customer)) return missing('customer', customer);
    const id = `${kind === 'setup' ? 'seti' : 'pi'}_${this.nextId()}`;
    const intent: IntentRecord = {
      kind,
      id,
      clientSecret: `${id}_secret_${this.nextId()}`,
      status: 'requires_payment_method',
      customer: customer ?? null,
      paymentMethod: null,
      amount: Number(params.amount ?? 0),
      currency: (params.currency as string | undefined) ?? '',
      description: (params.description as string | undefined) ?? null,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      setupFutureUsage: kind === 'setup' ? null : ((params.setup_future_usage as string | undefined) ?? null),
      lastError: null,
      latestCharge: null,
      created: this.nowSeconds,
    };
    this.intents.set(id, intent);
    if (params.confirm !== 'true') return this.shown(intent);
    return this.attempt(intent, String(params.payment_method ?? ''), params.off_session === 'true');
  }

  private showIntent({ params, path }: Call, id: string): Answer {
    const intent = this.intents.get(id);
    if (!intent || !path.includes(intent.kind === 'setup' ? 'setup_intents' : 'payment_intents')) {
      return missing(path.includes('setup') ? 'setup_intent' : 'payment_intent', id);
    }
    if (params.client_secret !== undefined && params.client_secret !== intent.clientSecret) {
      return invalid(
        'The client_secret provided does not match the client_secret associated with this intent.',
      );
    }
    const expand = (params.expand as string[] | undefined) ?? [];
    return this.shown(intent, expand.includes('payment_method'));
  }

  /** The browser's Stripe.js confirming an intent with the card the customer entered (its client secret). */
  private confirmIntent({ params, publishable }: Call, id: string): Answer {
    const intent = this.intents.get(id);
    if (!intent) return missing('intent', id);
    if (publishable && params.client_secret !== intent.clientSecret) {
      return invalid(
        'The client_secret provided does not match the client_secret associated with this intent.',
      );
    }
    return this.attempt(intent, String(params.payment_method ?? ''), false);
  }

  /**
   * The customer in the capture frame, as Stripe.js does it with the publishable key: the card entered becomes a
   * PaymentMethod, and the intent is confirmed with it and the client secret the service handed the frame.
   */
  async confirmInBrowser(
    confirm: Readonly<Record<string, string>>,
    card: { number: string; expMonth: number; expYear: number },
  ): Promise<void> {
    const browser = new Stripe(this.publishableKey, {
      httpClient: Stripe.createFetchHttpClient(this.fetch),
      maxNetworkRetries: 0,
      telemetry: false,
    });
    const clientSecret = confirm.clientSecret!;
    const intentId = clientSecret.split('_secret_')[0]!;
    try {
      const pm = await browser.paymentMethods.create({
        type: 'card',
        card: { number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: '123' },
      });
      const params = { payment_method: pm.id, client_secret: clientSecret };
      if (confirm.intent === 'setup') await browser.setupIntents.confirm(intentId, params);
      else await browser.paymentIntents.confirm(intentId, params);
    } catch (error) {
      // A decline shows in the Payment Element; the service learns of it by asking Stripe.
      if (!(error instanceof Stripe.errors.StripeCardError)) throw error;
    }
  }

  /** The customer passes the 3-D Secure challenge in the browser (Stripe's hooks.stripe.com page). */
  authenticate(intentId: string): void {
    const intent = this.intents.get(intentId);
    if (intent?.status !== 'requires_action') throw new Error(`${intentId} does not wait for authentication`);
    this.succeed(intent, this.paymentMethods.get(intent.paymentMethod!)!);
  }

  /**
   * The customer fails the 3-D Secure challenge (the test page's "Fail authentication"): as Stripe documents for
   * a failed authentication, the intent waits for another payment method with `last_payment_error` of code
   * `payment_intent_authentication_failure`, and `payment_intent.payment_failed` is sent.
   */
  failAuthentication(intentId: string): void {
    const intent = this.intents.get(intentId);
    if (intent?.status !== 'requires_action') throw new Error(`${intentId} does not wait for authentication`);
    intent.status = 'requires_payment_method';
    intent.lastError = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      message:
        'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
    };
    const pm = this.paymentMethods.get(intent.paymentMethod!);
    if (intent.kind === 'payment') this.emit('payment_intent.payment_failed', intentJson(intent, pm, false));
  }

  private shown(intent: IntentRecord, expand = false): Answer {
    return {
      status: 200,
      body: intentJson(intent, this.paymentMethods.get(intent.paymentMethod ?? ''), expand),
    };
  }

  /** Confirms an intent with a card, on session (the browser) or off session (a renewal), by the test card. */
  private attempt(intent: IntentRecord, paymentMethodId: string, offSession: boolean): Answer {
    const pm = this.paymentMethodNamed(paymentMethodId);
    if (!pm) return missing('payment_method', paymentMethodId);
    if (intent.customer && pm.customer && pm.customer !== intent.customer) {
      return invalid(
        'The provided PaymentMethod belongs to another Customer.',
        'payment_method_invalid_parameter',
      );
    }
    intent.paymentMethod = pm.id;
    const { behaviour } = pm;
    const decline = behaviour.declines ?? (intent.kind === 'payment' ? behaviour.declinesCharges : undefined);
    if (decline) return this.declined(intent, pm, decline.code, decline.declineCode);
    const asks =
      behaviour.authentication === 'always' ||
      (behaviour.authentication === 'unless_set_up' && !(offSession && pm.setUp));
    if (asks && offSession)
      return this.declined(intent, pm, 'authentication_required', 'authentication_required');
    if (asks) {
      intent.status = 'requires_action';
      return this.shown(intent);
    }
    this.succeed(intent, pm);
    return this.shown(intent);
  }

  private succeed(intent: IntentRecord, pm: PaymentMethodRecord): void {
    intent.status = 'succeeded';
    intent.lastError = null;
    if (intent.kind === 'setup' || intent.setupFutureUsage === 'off_session') {
      pm.customer = intent.customer;
      pm.setUp = true;
    }
    if (intent.kind === 'setup') return;
    intent.latestCharge = `ch_${this.nextId()}`;
    this.emit('payment_intent.succeeded', intentJson(intent, pm, false));
    if (pm.behaviour.disputed) this.openDispute(intent);
  }

  /** A card error: HTTP 402 carrying the intent, which waits for another payment method. */
  private declined(
    intent: IntentRecord,
    pm: PaymentMethodRecord,
    code: string,
    declineCode?: string,
  ): Answer {
    const error: CardError = {
      type: 'card_error',
      code,
      ...(declineCode ? { decline_code: declineCode } : {}),
      message: MESSAGES[declineCode ?? code] ?? MESSAGES.generic_decline!,
    };
    intent.status = 'requires_payment_method';
    intent.lastError = error;
    const shown = intentJson(intent, pm, false);
    if (intent.kind === 'payment') {
      intent.latestCharge = `ch_${this.nextId()}`;
      this.emit('payment_intent.payment_failed', intentJson(intent, pm, false));
    }
    const key = intent.kind === 'setup' ? 'setup_intent' : 'payment_intent';
    return fail(402, {
      ...error,
      payment_method: paymentMethodJson(pm),
      [key]: { ...shown, latest_charge: intent.latestCharge },
    });
  }

  private createRefund({ params }: Call): Answer {
    const intent = this.intents.get(String(params.payment_intent));
    if (!intent || intent.kind !== 'payment') return missing('payment_intent', String(params.payment_intent));
    const refunded = [...this.refunds.values()]
      .filter((r) => r.paymentIntent === intent.id && r.status !== 'failed' && r.status !== 'canceled')
      .reduce((sum, r) => sum + r.amount, 0);
    const amount = params.amount === undefined ? intent.amount - refunded : Number(params.amount);
    if (intent.status !== 'succeeded') {
      return invalid(
        `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
        'charge_not_refundable',
      );
    }
    if (amount > intent.amount - refunded) {
      return invalid(
        `Refund amount (${amount}) is greater than unrefunded amount on charge`,
        'amount_too_large',
        'amount',
      );
    }
    const refund: RefundRecord = {
      id: `re_${this.nextId()}`,
      paymentIntent: intent.id,
      charge: intent.latestCharge!,
      amount,
      currency: intent.currency,
      status: this.nextRefundStatus,
      failureReason: null,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      created: this.nowSeconds,
    };
    this.refunds.set(refund.id, refund);
    return { status: 200, body: refundJson(refund) };
  }

  /** A pending refund goes through or fails at the bank: Stripe tells with `refund.updated`. */
  settleRefund(refundId: string, status: 'succeeded' | 'failed'): void {
    const refund = this.refunds.get(refundId)!;
    refund.status = status;
    refund.failureReason = status === 'failed' ? 'expired_or_canceled_card' : null;
    // Stripe sends both names of the event to endpoints that subscribe to both.
    this.emit('refund.updated', refundJson(refund));
    this.emit('charge.refund.updated', refundJson(refund));
  }

  private openDispute(intent: IntentRecord): void {
    const dispute: DisputeRecord = {
      id: `du_${this.nextId()}`,
      paymentIntent: intent.id,
      charge: intent.latestCharge!,
      amount: intent.amount,
      currency: intent.currency,
      status: 'needs_response',
      reason: 'fraudulent',
      created: this.nowSeconds,
    };
    this.disputes.set(dispute.id, dispute);
    this.emit('charge.dispute.created', disputeJson(dispute));
  }

  /** The card network decides a dispute (in test mode: the evidence `winning_evidence` or `losing_evidence`). */
  closeDispute(paymentIntentId: string, outcome: 'won' | 'lost'): void {
    const dispute = [...this.disputes.values()].find((d) => d.paymentIntent === paymentIntentId)!;
    dispute.status = outcome;
    this.emit('charge.dispute.closed', disputeJson(dispute));
  }

  private emit(type: string, object: Record<string, unknown>): void {
    this.events.push(
      sampleOf('event', {
        id: `evt_${this.nextId()}`,
        type,
        created: this.nowSeconds,
        api_version: '2026-10-28.endive',
        data: { object },
        request: { id: null, idempotency_key: null },
      }),
    );
  }

  /**
   * The last event of a type, as Stripe delivers it: its JSON (checked against the document's event schema),
   * signed with the endpoint's secret by Stripe's own scheme.
   */
  async delivery(
    type: string,
    options: { secret?: string; signedAt?: number } = {},
  ): Promise<{ headers: Record<string, string>; rawBody: Buffer }> {
    const event = this.events.findLast((each) => each.type === type);
    if (!event) throw new Error(`no ${type} event was sent`);
    const problems = checkResponse(this.api, 'GET /v1/events/{id}', 200, event);
    this.answerProblems.push(...problems.map((p) => `event ${type}: ${String(p)}`));
    const payload = JSON.stringify(event, null, 2);
    const header = this.signer.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? this.webhookSecret,
      timestamp: options.signedAt ?? this.nowSeconds,
    });
    return {
      headers: { 'stripe-signature': header, 'content-type': 'application/json' },
      rawBody: Buffer.from(payload),
    };
  }
}
