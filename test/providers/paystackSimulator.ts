import type { Clock } from '../../src/clock.ts';
import { checkRequest, checkResponse, loadProviderApi, shapeProblems } from './openApi.ts';
import type { ProviderApi } from './openApi.ts';
import {
  PAYSTACK_DOCUMENT,
  PAYSTACK_TEST_CARDS,
  PAYSTACK_TEST_OTP,
  brandOf,
  sample,
  signedWebhook,
} from './paystackSamples.ts';
import type { Json } from './paystackSamples.ts';

export { PAYSTACK_DOCUMENT, PAYSTACK_TEST_CARDS, PAYSTACK_TEST_OTP } from './paystackSamples.ts';

/**
 * Paystack, in process: a `fetch` the Paystack driver is given instead of the network. Every request is checked
 * against Paystack's published OpenAPI document (test/providers/openApi.ts; request bodies closed to unknown
 * fields), and every answer is built from Paystack's published sample for the operation, adjusted to the request,
 * and checked against the document's schema for its status. A departure is kept in `problems` (and answered 400),
 * which each test expects empty.
 *
 * Outcomes follow Paystack's documented test cards, paid in the browser stand-in `payWithCard` (Inline JS posting
 * card details to Paystack): the card number is used to choose the outcome and never kept (only its last four
 * digits and brand, as Paystack's authorization shows them). What no test card triggers is a knob: declining an
 * authorization's next charges with a gateway_response, leaving a charge pending, losing the answer to a request
 * naming a reference, and the late events (refunds processed or failed, disputes), each with a signed webhook.
 */

interface CardFacts {
  last4: string;
  bin: string;
  brand: string;
  expMonth: string;
  expYear: string;
  pausesRenewals: boolean;
}

interface Transaction {
  id: number;
  reference: string;
  accessCode: string;
  email: string;
  amount: number;
  currency: string;
  status: string;
  gatewayResponse: string;
  metadata: unknown;
  createdAt: string;
  paidAt: string | null;
  authorizationCode: string | null;
  authorizationUrl?: string;
  viaChargeAuthorization: boolean;
}

interface Refund {
  id: number;
  transaction: Transaction;
  amount: number;
  currency: string;
  status: string;
  merchantNote: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Answer {
  status: number;
  body: Json;
  /** The operation whose documented answer the body must match (its id). */
  operationId: string;
  /** The published sample the body was built from, when the document's schema is stricter than the sample. */
  sample?: Json;
}

export class PaystackSimulator {
  readonly problems: string[] = [];
  /** Every request as the driver sent it: method, path with query, and body (never a card number). */
  readonly requests: { method: string; path: string; body: Json | undefined }[] = [];
  private readonly transactions = new Map<string, Transaction>();
  private readonly authorizations = new Map<string, { card: CardFacts; email: string }>();
  private readonly refunds = new Map<number, Refund>();
  private readonly declines = new Map<string, string>();
  private readonly pending = new Set<string>();
  private readonly lostAnswers = new Set<string>();
  private readonly samples = {
    initialize: sample('transactions/initialize'),
    verify: sample('transactions/verify'),
    chargeAuthorization: sample('transactions/charge_authorization'),
    refundCreate: sample('refunds/create'),
    refundList: sample('refunds/list'),
    dispute: sample('disputes/fetch'),
  };
  private nextId = 4_099_260_516;

  private constructor(
    private readonly api: ProviderApi,
    readonly secretKey: string,
    private readonly clock: Clock,
  ) {}

  static async start(secretKey: string, clock: Clock): Promise<PaystackSimulator> {
    // List Refunds takes `transaction` on Paystack's API reference ("List Refunds") though its OpenAPI document
    // omits it: named here, and listed among what to check by hand (docs/gateways/paystack.md).
    const api = await loadProviderApi(PAYSTACK_DOCUMENT, {
      refund_list: { transaction: { type: 'string' } },
    });
    return new PaystackSimulator(api, secretKey, clock);
  }

  private now = () => this.clock.now().toISOString();

  /** The `fetch` the driver is given. */
  readonly fetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = typeof init?.body === 'string' ? init.body : undefined;
    const parsed = new URL(url);
    const json = body === undefined ? undefined : (JSON.parse(body) as Json);
    this.requests.push({ method, path: `${parsed.pathname}${parsed.search}`, body: json });
    const problems = parsed.origin === 'https://api.paystack.co' ? [] : [`request to ${parsed.origin}`];
    problems.push(...checkRequest(this.api, { method, url, headers, body }));
    if (problems.length) {
      this.problems.push(...problems.map((p) => `${method} ${parsed.pathname}: ${p}`));
      return Response.json({ status: false, message: `simulator: ${problems.join('; ')}` }, { status: 400 });
    }
    const answer = this.answer(method, parsed, headers.authorization ?? '', json ?? {});
    this.problems.push(...this.answerProblems(answer).map((p) => `${method} ${parsed.pathname}: ${p}`));
    const lost = this.loses(parsed.pathname, json);
    if (lost) return this.neverAnswer(init?.signal ?? undefined);
    return Response.json(answer.body, { status: answer.status });
  };

  /**
   * An answer must match the document's schema for its status, or have the shape of the published sample it was
   * built from: Paystack's schemas list as required fields its own samples leave out (List Refunds' `meta`,
   * a dispute's `transaction.connect`), and the samples are what Paystack's API reference shows it answering.
   */
  private answerProblems(answer: Answer): string[] {
    const problems = checkResponse(this.api, answer.operationId, answer.status, answer.body);
    if (!problems.length || !answer.sample) return problems;
    const shape = shapeProblems(answer.body, answer.sample);
    return shape.length ? [...problems, ...shape.map((p) => `against the sample: ${p}`)] : [];
  }

  private answer(method: string, url: URL, authorization: string, body: Json): Answer {
    const route = `${method} ${url.pathname.replace(/\/transaction\/verify\/.*/, '/transaction/verify/:ref')}`;
    const operationId = {
      'POST /transaction/initialize': 'transaction_initialize',
      'POST /transaction/charge_authorization': 'transaction_chargeAuthorization',
      'GET /transaction/verify/:ref': 'transaction_verify',
      'POST /refund': 'refund_create',
      'GET /refund': 'refund_list',
      'GET /balance': 'balance_fetch',
    }[route];
    if (!operationId) {
      this.problems.push(`the simulator does not answer ${route}`);
      return {
        status: 404,
        operationId: 'transaction_verify',
        body: { status: false, message: 'not simulated' },
      };
    }
    if (authorization !== `Bearer ${this.secretKey}`) {
      return { status: 401, operationId, body: { status: false, message: 'Invalid key' } };
    }
    switch (operationId) {
      case 'transaction_initialize':
        return this.initialize(body);
      case 'transaction_chargeAuthorization':
        return this.chargeAuthorization(body);
      case 'transaction_verify':
        return this.verify(decodeURIComponent(url.pathname.split('/').pop() ?? ''));
      case 'refund_create':
        return this.createRefund(body);
      case 'refund_list':
        return this.listRefunds(url.searchParams.get('transaction'));
      default:
        return { status: 200, operationId, body: { status: true, message: 'Balances retrieved', data: [] } };
    }
  }

  /** Paystack's answer to a reference it has: the document's own model and example for it. */
  private duplicate(): Answer {
    const body = {
      status: false,
      message: 'Duplicate Transaction Reference',
      meta: { nextStep: 'Try and create the Transaction or Charge with a new reference' },
      type: 'validation_error',
      code: 'duplicate_reference',
    };
    // The document gives this model for initialize's 400; charge_authorization answers the same way.
    return { status: 400, operationId: 'transaction_initialize', body };
  }

  private newTransaction(body: Json, viaChargeAuthorization: boolean): Transaction {
    this.nextId += 1;
    const reference = typeof body.reference === 'string' ? body.reference : `sim${this.nextId}`;
    const transaction: Transaction = {
      id: this.nextId,
      reference,
      accessCode: `acsim${this.nextId}`,
      email: String(body.email),
      amount: Number(body.amount),
      currency: typeof body.currency === 'string' ? body.currency : 'NGN',
      status: 'abandoned',
      gatewayResponse: 'The transaction was not completed',
      metadata: body.metadata ?? '',
      createdAt: this.now(),
      paidAt: null,
      authorizationCode: null,
      viaChargeAuthorization,
    };
    this.transactions.set(reference, transaction);
    return transaction;
  }

  private initialize(body: Json): Answer {
    if (typeof body.reference === 'string' && this.transactions.has(body.reference)) {
      return this.duplicate();
    }
    const transaction = this.newTransaction(body, false);
    const answer = structuredClone(this.samples.initialize['200'].data) as Json;
    answer.data = {
      authorization_url: `https://checkout.paystack.com/${transaction.accessCode}`,
      access_code: transaction.accessCode,
      reference: transaction.reference,
    };
    return {
      status: 200,
      operationId: 'transaction_initialize',
      body: answer,
      sample: this.samples.initialize['200'].data,
    };
  }

  private chargeAuthorization(body: Json): Answer {
    const authorization = this.authorizations.get(String(body.authorization_code));
    if (!authorization || authorization.email !== body.email) {
      return {
        status: 400,
        operationId: 'transaction_initialize',
        body: { status: false, message: 'Invalid authorization code or email', type: 'validation_error' },
      };
    }
    if (typeof body.reference === 'string' && this.transactions.has(body.reference)) {
      return this.duplicate();
    }
    const transaction = this.newTransaction(body, true);
    const code = String(body.authorization_code);
    transaction.authorizationCode = code;
    const decline = this.declines.get(code);
    if (decline) this.finish(transaction, 'failed', decline);
    else if (this.pending.has(code)) this.finish(transaction, 'pending', 'Transaction is being processed');
    else if (authorization.card.pausesRenewals) {
      this.finish(transaction, 'paused', 'Authorization required');
      transaction.authorizationUrl = `https://checkout.paystack.com/resume/${transaction.accessCode}`;
    } else this.finish(transaction, 'success', 'Approved');
    const answer = structuredClone(this.samples.chargeAuthorization['200'].data) as Json;
    Object.assign(answer.data, this.transactionFields(transaction), {
      transaction_date: transaction.createdAt,
      metadata: '',
      ...(transaction.authorizationUrl ? { authorization_url: transaction.authorizationUrl } : {}),
    });
    return {
      status: 200,
      operationId: 'transaction_chargeAuthorization',
      body: answer,
      sample: this.samples.chargeAuthorization['200'].data,
    };
  }

  private finish(transaction: Transaction, status: string, gatewayResponse: string) {
    transaction.status = status;
    transaction.gatewayResponse = gatewayResponse;
    if (status === 'success') transaction.paidAt = this.now();
  }

  /** The fields a transaction shows in verify, charge_authorization and charge.success, on the sample's shape. */
  private transactionFields(transaction: Transaction): Json {
    const sampleData = this.samples.verify['200'].data.data as Json;
    const authorization = transaction.authorizationCode
      ? this.authorizations.get(transaction.authorizationCode)
      : undefined;
    const card = authorization?.card;
    return {
      id: transaction.id,
      status: transaction.status,
      reference: transaction.reference,
      amount: transaction.amount,
      currency: transaction.currency,
      gateway_response: transaction.gatewayResponse,
      domain: 'test',
      channel: 'card',
      authorization: {
        ...sampleData.authorization,
        authorization_code: transaction.authorizationCode ?? sampleData.authorization.authorization_code,
        ...(card
          ? {
              bin: card.bin,
              last4: card.last4,
              exp_month: card.expMonth,
              exp_year: card.expYear,
              brand: card.brand,
            }
          : {}),
        card_type: card ? `${card.brand} ` : sampleData.authorization.card_type,
        reusable: Boolean(card),
        country_code: 'ZA',
      },
      customer: { ...sampleData.customer, email: transaction.email },
    };
  }

  private verify(reference: string): Answer {
    const transaction = this.transactions.get(reference);
    if (!transaction) {
      return {
        status: 404,
        operationId: 'transaction_verify',
        body: { status: false, message: 'Transaction reference not found' },
      };
    }
    const answer = structuredClone(this.samples.verify['200'].data) as Json;
    Object.assign(answer.data, this.transactionFields(transaction), {
      metadata: transaction.metadata,
      paid_at: transaction.paidAt,
      paidAt: transaction.paidAt,
      created_at: transaction.createdAt,
      createdAt: transaction.createdAt,
      transaction_date: transaction.createdAt,
      requested_amount: transaction.amount,
    });
    return {
      status: 200,
      operationId: 'transaction_verify',
      body: answer,
      sample: this.samples.verify['200'].data,
    };
  }

  private findTransaction(idOrReference: string): Transaction | undefined {
    return (
      this.transactions.get(idOrReference) ??
      [...this.transactions.values()].find((transaction) => String(transaction.id) === idOrReference)
    );
  }

  private createRefund(body: Json): Answer {
    const transaction = this.findTransaction(String(body.transaction));
    const refunded = [...this.refunds.values()]
      .filter((refund) => refund.transaction === transaction && refund.status !== 'failed')
      .reduce((total, refund) => total + refund.amount, 0);
    const amount = typeof body.amount === 'number' ? body.amount : (transaction?.amount ?? 0) - refunded;
    if (!transaction || transaction.status !== 'success' || amount + refunded > transaction.amount) {
      const message = transaction
        ? 'Refund amount cannot be more than the transaction amount'
        : 'Transaction not found';
      return { status: 400, operationId: 'transaction_initialize', body: { status: false, message } };
    }
    this.nextId += 1;
    const refund: Refund = {
      id: this.nextId,
      transaction,
      amount,
      currency: transaction.currency,
      status: 'pending',
      merchantNote: typeof body.merchant_note === 'string' ? body.merchant_note : null,
      createdAt: this.now(),
      updatedAt: this.now(),
    };
    this.refunds.set(refund.id, refund);
    const answer = structuredClone(this.samples.refundCreate['200'].data) as Json;
    Object.assign(answer.data.transaction, {
      id: transaction.id,
      domain: 'test',
      reference: transaction.reference,
      amount: transaction.amount,
      paid_at: transaction.paidAt,
      paidAt: transaction.paidAt,
      channel: 'card',
      currency: transaction.currency,
    });
    Object.assign(answer.data, {
      domain: 'test',
      amount,
      currency: refund.currency,
      status: refund.status,
      id: refund.id,
      merchant_note: refund.merchantNote ?? answer.data.merchant_note,
      createdAt: refund.createdAt,
      updatedAt: refund.updatedAt,
    });
    return {
      status: 200,
      operationId: 'refund_create',
      body: answer,
      sample: this.samples.refundCreate['200'].data,
    };
  }

  private listRefunds(transaction: string | null): Answer {
    const template = this.samples.refundList['200'].data.data[0] as Json;
    const wanted = transaction === null ? undefined : this.findTransaction(transaction);
    const data = [...this.refunds.values()]
      .filter((refund) => transaction === null || refund.transaction === wanted)
      .map((refund) => ({
        ...template,
        id: refund.id,
        domain: 'test',
        transaction: refund.transaction.id,
        dispute: null,
        amount: refund.amount,
        deducted_amount: refund.status === 'processed' ? refund.amount : null,
        currency: refund.currency,
        channel: 'card',
        fully_deducted: refund.status === 'processed' ? 1 : null,
        merchant_note: refund.merchantNote,
        created_at: refund.createdAt,
        updated_at: refund.updatedAt,
        status: refund.status,
      }));
    return {
      status: 200,
      operationId: 'refund_list',
      body: { status: true, message: 'Refunds retrieved', data },
      sample: this.samples.refundList['200'].data,
    };
  }

  private loses(pathname: string, body: Json | undefined): boolean {
    const named = body?.reference ?? body?.transaction;
    const reference = typeof named === 'string' ? named : pathname.split('/').pop();
    if (!reference || !this.lostAnswers.has(reference)) return false;
    this.lostAnswers.delete(reference);
    return true;
  }

  /** No answer: the request hangs until the caller gives up (its AbortSignal), as a lost answer does. */
  private neverAnswer(signal: AbortSignal | undefined): Promise<Response> {
    return new Promise((_resolve, reject) => {
      if (!signal) throw new Error('the simulator loses answers only to requests that can time out');
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
  }

  // ---- The browser stand-in: Inline JS posting the card to Paystack ----

  /**
   * The customer pays in Paystack's popup with a card: the transaction behind the access code is paid, refused, or
   * waits for an OTP (`submitOtp`), by Paystack's test card numbers. Any other number is paid.
   */
  payWithCard(
    accessCode: string,
    card: { number: string; expiryMonth: number; expiryYear: number; pin?: string },
  ) {
    const transaction = [...this.transactions.values()].find((t) => t.accessCode === accessCode);
    if (!transaction) throw new Error(`no transaction has the access code ${accessCode}`);
    const facts: CardFacts = {
      last4: card.number.slice(-4),
      bin: card.number.slice(0, 6),
      brand: brandOf(card.number),
      expMonth: String(card.expiryMonth).padStart(2, '0'),
      expYear: String(card.expiryYear),
      pausesRenewals: card.number === PAYSTACK_TEST_CARDS.pinAndOtp.number,
    };
    const code = `AUTH_sim${transaction.id}`;
    transaction.authorizationCode = code;
    this.authorizations.set(code, { card: facts, email: transaction.email });
    if (card.number === PAYSTACK_TEST_CARDS.declined.number) this.finish(transaction, 'failed', 'Declined');
    else if (facts.pausesRenewals)
      this.finish(transaction, 'send_otp', 'Kindly enter the OTP sent to your phone');
    else this.finish(transaction, 'success', 'Successful');
    if (transaction.status === 'failed') this.authorizations.delete(code);
    return transaction.status;
  }

  submitOtp(accessCode: string, otp: string): string {
    const transaction = [...this.transactions.values()].find((t) => t.accessCode === accessCode);
    if (!transaction || transaction.status !== 'send_otp') throw new Error('no transaction waits for an OTP');
    if (otp === PAYSTACK_TEST_OTP) this.finish(transaction, 'success', 'Successful');
    else this.finish(transaction, 'failed', 'Token Authentication Failed');
    return transaction.status;
  }

  /**
   * Paystack's checkout page answering the browser (the InlineJS stand-in, test/providers/standIns/paystackInline.ts):
   * a card, or the OTP it asked for, entered on the transaction behind the access code; answers what the checkout
   * shows next (`success`, `send_otp`, `failed`) with Paystack's words, and the transaction's reference and id.
   */
  checkout(
    accessCode: string,
    entered: { card: { number: string; expiryMonth: number; expiryYear: number } } | { otp: string },
  ): { status: string; message: string; reference: string; id: number } {
    const status =
      'otp' in entered ? this.submitOtp(accessCode, entered.otp) : this.payWithCard(accessCode, entered.card);
    const transaction = [...this.transactions.values()].find((t) => t.accessCode === accessCode)!;
    return {
      status,
      message: transaction.gatewayResponse,
      reference: transaction.reference,
      id: transaction.id,
    };
  }

  // ---- Knobs for what no test card triggers ----

  /** The authorization's next charges fail inside a 200, with this issuer's answer (`Insufficient Funds`). */
  declineChargesOf(authorizationCode: string, gatewayResponse: string) {
    this.declines.set(authorizationCode, gatewayResponse);
  }

  /** The authorization's next charges stay pending, until `settleCharge`. */
  pendChargesOf(authorizationCode: string) {
    this.pending.add(authorizationCode);
  }

  /** The next request naming the reference is acted on, and its answer lost: it never comes. */
  loseNextAnswer(reference: string) {
    this.lostAnswers.add(reference);
  }

  /** The authorization the card paid in the checkout of `accessCode` left (verify shows it as authorization_code). */
  authorizationPaidWith(accessCode: string): string {
    const transaction = [...this.transactions.values()].find((t) => t.accessCode === accessCode);
    return this.authorizationOf(transaction?.reference ?? '');
  }

  authorizationOf(reference: string): string {
    const code = this.transactions.get(reference)?.authorizationCode;
    if (!code) throw new Error(`no authorization on ${reference}`);
    return code;
  }

  /** Charges Paystack made by charge_authorization (a retry that made a second would show here). */
  chargesMade(): { reference: string; status: string; amount: number }[] {
    return [...this.transactions.values()]
      .filter((t) => t.viaChargeAuthorization)
      .map((t) => ({ reference: t.reference, status: t.status, amount: t.amount }));
  }

  refundsOf(reference: string): { id: number; amount: number; status: string }[] {
    return [...this.refunds.values()]
      .filter((refund) => refund.transaction.reference === reference)
      .map((refund) => ({ id: refund.id, amount: refund.amount, status: refund.status }));
  }

  // ---- Late events, each with the webhook Paystack sends ----

  /** A webhook as Paystack sends it: the JSON body and its x-paystack-signature (HMAC-SHA512, secret key). */
  webhook(event: string, data: Json, secretKey = this.secretKey) {
    return signedWebhook(secretKey, event, data);
  }

  settleCharge(reference: string) {
    const transaction = this.transactions.get(reference);
    if (!transaction) throw new Error(`no transaction ${reference}`);
    this.finish(transaction, 'success', 'Approved');
    const data = this.verify(reference).body.data as Json;
    return this.webhook('charge.success', data);
  }

  /** A pending refund ends: processed (the money went back) or failed (it stays with the business). */
  endRefund(refundId: number, status: 'processed' | 'failed') {
    const refund = this.refunds.get(refundId);
    if (!refund) throw new Error(`no refund ${refundId}`);
    refund.status = status;
    refund.updatedAt = this.now();
    return this.webhook(`refund.${status}`, {
      status,
      transaction_reference: refund.transaction.reference,
      refund_reference: null,
      amount: refund.amount,
      currency: refund.currency,
      processor: 'card',
      customer: { first_name: null, last_name: null, email: refund.transaction.email },
      integration: 412829,
      domain: 'test',
      id: String(refund.id),
    });
  }

  /** A dispute opened on the charge, or resolved (`declined`: the business keeps the money; `merchant-accepted`). */
  dispute(reference: string, stage: 'create' | 'resolve', resolution: string | null = null) {
    const transaction = this.transactions.get(reference);
    if (!transaction) throw new Error(`no transaction ${reference}`);
    const answer = structuredClone(this.samples.dispute['200'].data) as Json;
    Object.assign(answer.data.transaction, {
      id: transaction.id,
      status: transaction.status,
      reference: transaction.reference,
      amount: transaction.amount,
      currency: transaction.currency,
      gateway_response: transaction.gatewayResponse,
      paid_at: transaction.paidAt,
      paidAt: transaction.paidAt,
      created_at: transaction.createdAt,
      createdAt: transaction.createdAt,
      requested_amount: transaction.amount,
    });
    Object.assign(answer.data, {
      status: stage === 'create' ? 'awaiting-merchant-feedback' : 'resolved',
      resolution,
      refund_amount: transaction.amount,
      currency: transaction.currency,
      category: 'chargeback',
      transaction_reference: transaction.reference,
      createdAt: transaction.paidAt,
      resolvedAt: stage === 'resolve' ? this.now() : null,
    });
    const sample = this.samples.dispute['200'].data;
    this.problems.push(
      ...this.answerProblems({ status: 200, operationId: 'dispute_fetch', body: answer, sample }),
    );
    return this.webhook(`charge.dispute.${stage}`, answer.data as Json);
  }
}
