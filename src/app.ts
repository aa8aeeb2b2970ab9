import crypto from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import { moneyTurnSettings, usageRateSettings } from './config.ts';
import type { UsageRateSettings } from './config.ts';
import type { MoneyTurnSettings } from './config.ts';
import { contextFor, serviceMemory } from './context.ts';
import { pauseRateRefusals } from './http/pageRateLimit.ts';
import type { ServiceContext, ServiceMemory, WebhookRules, WebhookSender } from './context.ts';
import type { PasswordHashing } from './security/passwords.ts';
import type { SecretBox } from './security/secretBox.ts';
import type { Storage } from './storage/database.ts';
import { modulePorts } from './modulePorts.ts';
import { authenticate, getAccount } from './modules/auth/index.ts';
import type { Account } from './modules/auth/index.ts';
import { registerAccountRoutes } from './modules/auth/account.routes.ts';
import { registerGoLiveRoutes } from './modules/goLive/goLive.routes.ts';
import { registerComponentRoutes } from './modules/catalogue/components.routes.ts';
import { registerCountryRoutes } from './modules/catalogue/countries.routes.ts';
import { registerCurrencyRoutes } from './modules/catalogue/currencies.routes.ts';
import { registerPackageGroupRoutes } from './modules/catalogue/packageGroups.routes.ts';
import { registerEntitlementRoutes } from './modules/entitlements/entitlements.routes.ts';
import { registerFeatureRoutes } from './modules/entitlements/features.routes.ts';
import { registerUsageAlertRoutes } from './modules/usageAlerts/usageAlerts.routes.ts';
import { registerCreditsRoutes } from './modules/credits/credits.routes.ts';
import { registerBillableMetricRoutes } from './modules/catalogue/billableMetrics.routes.ts';
import { registerPackageRoutes } from './modules/catalogue/packages.routes.ts';
import { registerTaxRoutes } from './modules/catalogue/tax.routes.ts';
import { registerContactRoutes } from './modules/customers/contacts.routes.ts';
import { registerCustomerRoutes } from './modules/customers/customers.routes.ts';
import { registerNoteRoutes } from './modules/customers/notes.routes.ts';
import { registerEventRoutes } from './modules/events/events.routes.ts';
import { registerWebhookEndpointRoutes } from './modules/events/webhookEndpoints.routes.ts';
import { registerGatewaysRoutes } from './modules/gateways/gateways.routes.ts';
import { registerInvoicesRoutes } from './modules/invoicing/invoices.routes.ts';
import { registerRecurringInvoicesRoutes } from './modules/invoicing/recurringInvoices.routes.ts';
import { registerAdjustmentsRoutes } from './modules/ledger/adjustments.routes.ts';
import { registerCreditNotesRoutes } from './modules/ledger/creditNotes.routes.ts';
import { registerTaxCreditNotesRoutes } from './modules/ledger/taxCreditNotes.routes.ts';
import { registerReportsRoutes } from './modules/reports/reports.routes.ts';
import { registerPaymentsRoutes } from './modules/ledger/payments.routes.ts';
import { registerStatementsRoutes } from './modules/statements/statements.routes.ts';
import { registerPaymentMethodsRoutes } from './modules/paymentMethods/paymentMethods.routes.ts';
import {
  registerSubscriptionChangeRoutes,
  registerSubscriptionPauseRoutes,
} from './modules/subscriptions/subscriptionChanges.routes.ts';
import { registerSubscriptionsRoutes } from './modules/subscriptions/subscriptions.routes.ts';
import { registerSubscriptionCouponRoutes } from './modules/subscriptions/subscriptionCoupons.routes.ts';
import { registerProgressiveBillingRoutes } from './modules/subscriptions/progressiveBilling.routes.ts';
import { registerCouponRoutes } from './modules/coupons/coupons.routes.ts';
import { registerRetentionRoutes } from './modules/retention/retention.routes.ts';
import { registerTestClockRoutes } from './billing/testClock.routes.ts';
import { registerCollectionsRoutes } from './modules/collections/collections.routes.ts';
import { registerBatchesRoutes } from './modules/batches/batches.routes.ts';
import { registerWidgetsRoutes } from './modules/widgets/widgets.routes.ts';
import { registerCaptureFrameRoutes } from './modules/widgets/captureFrame.routes.ts';
import { registerPayPageRoutes } from './modules/widgets/payPage.routes.ts';
import { registerGatewayWebhookRoutes } from './modules/collections/gatewayWebhooks.routes.ts';
import type { Actor } from './context.ts';
import {
  registerEmandateRoutes,
  registerEmandateWidgetApiRoutes,
} from './modules/mandates/emandates.routes.ts';
import { registerEmandatePageRoutes } from './modules/mandates/emandatePages.routes.ts';
import { registerPortalApiRoutes } from './modules/portal/portalApi.routes.ts';
import { registerPortalRoutes } from './modules/portal/portal.routes.ts';
import { passwordCheckSlots } from './modules/portal/index.ts';
import { registerUsageEventRoutes } from './modules/usage/usageEvents.routes.ts';
import { BATCH_MAX, usageStorageCap } from './modules/usage/index.ts';
import { registerFavicon } from './http/favicon.ts';
import { readCredentials, sendUnauthorized, throttleFailedAuthentication } from './http/auth.ts';
import { serverTimeouts, setSecurityHeaders } from './http/hardening.ts';
import type { ConnectionTimeouts } from './http/hardening.ts';
import { answerClientError, answerFrameworkError, registerErrorHandling } from './http/errors.ts';
import { registerJsonBodies } from './http/jsonBody.ts';
import { registerOpenApi } from './http/openapi.ts';
import { RequestLog } from './http/requestLog.ts';
import { refuseNulInUrls } from './http/urlText.ts';
import { linkOrigin, refuseUnplainHosts } from './http/origin.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { CustomerQueue, registerCustomerQueue } from './http/customerQueue.ts';
import { RateBudget, registerUsageBudget } from './http/rateBudget.ts';
import type { IdempotencyLease } from './http/idempotencyLease.ts';
import { trackRequests } from './http/inflight.ts';
import type { InFlight } from './http/inflight.ts';
import { problem, sendProblem } from './http/problem.ts';
import { ProblemSchema } from './http/schemas.ts';
import { registerValidation } from './http/validation.ts';
import { serializersCompiledOnce } from './http/compiledOnce.ts';
import type { App } from './http/types.ts';
import type { DocumentRenderer } from './pdf/documentPool.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication on every /v1 route. */
    ctx: ServiceContext;
  }
}

export interface AppDeps {
  storage: Storage;
  clock: Clock;
  /** The wall clock every request's context carries (ServiceContext.wallClock). */
  wallClock: Clock;
  secrets: SecretBox;
  logger: Logger;
  bodyLimitBytes: number;
  timeouts: ConnectionTimeouts;
  authFailuresPerMinute: number;
  inflight: InFlight;
  /** This process's lease on the Idempotency-Keys it reserves. */
  idempotencyLease: IdempotencyLease;
  mailQueued(): void;
  /** This process's webhook worker, which changes hand their deliveries to. */
  webhookSender?: WebhookSender;
  /** This process's PDF threads, which every request's context carries. */
  documents?: DocumentRenderer;
  /** Where browsers reach the service (PUBLIC_URL); undefined: links for loopback requests only (linkOrigin). */
  publicUrl?: string;
  /** TRUSTED_PROXIES: requests from these addresses are from the client X-Forwarded-For names. */
  trustedProxies?: string[];
  /** The HTTP client payment providers are reached with (ServiceContext.providerFetch); `fetch` unless given. */
  providerFetch?: typeof fetch;
  /** How customers' money movements take turns (src/http/customerQueue.ts); the configuration's defaults unless given. */
  moneyTurns?: MoneyTurnSettings;
  /** What one account may send of usage events (docs/usage.md, "Limits"); the configuration's defaults unless given. */
  usageRate?: UsageRateSettings;
  /** The cap on an account's stored usage events (USAGE_STORAGE_BYTES_PER_ACCOUNT; 0: none); 10 GB unless given. */
  usageStorageBytesPerAccount?: number;
  /** What the service keeps in memory (ServiceContext.memory); a memory of the app's own unless given. */
  memory?: ServiceMemory;
  /** The service's webhook settings (ServiceContext.webhookRules); the defaults unless given. */
  webhookRules?: WebhookRules;
  /** The service's password hashing (ServiceContext.passwordHashing); the default cost unless given. */
  passwordHashing?: PasswordHashing;
}

const REQUEST_ID = /^[\w.:-]{1,64}$/;

/**
 * One account's budget of usage events in this process (docs/usage.md, "Limits"): events and their bytes per second,
 * with two seconds' worth (at least a full batch, at least a full body) gathered while it is idle.
 */
function usageBudget(
  rate: UsageRateSettings,
  bodyLimitBytes: number,
  wallClock: Clock,
): RateBudget<'events' | 'bytes'> {
  return new RateBudget(
    {
      events: { perSecond: rate.eventsPerSecond, burst: Math.max(2 * rate.eventsPerSecond, BATCH_MAX) },
      bytes: { perSecond: rate.bytesPerSecond, burst: Math.max(2 * rate.bytesPerSecond, bodyLimitBytes) },
    },
    wallClock,
  );
}

/** Every module's routes under /v1: each module owns its routes file, and only this composition root reads it. */
function registerRoutes(v1: App, deps: Pick<AppDeps, 'publicUrl' | 'clock'>): void {
  registerCustomerRoutes(v1);
  registerContactRoutes(v1, { publicUrl: deps.publicUrl });
  registerNoteRoutes(v1);
  registerCurrencyRoutes(v1);
  registerCountryRoutes(v1);
  registerTaxRoutes(v1);
  registerPackageGroupRoutes(v1);
  registerPackageRoutes(v1);
  registerComponentRoutes(v1);
  registerBillableMetricRoutes(v1);
  registerGatewaysRoutes(v1);
  registerAccountRoutes(v1, { publicUrl: deps.publicUrl });
  registerGoLiveRoutes(v1, { clock: deps.clock });
  registerInvoicesRoutes(v1);
  registerRecurringInvoicesRoutes(v1);
  registerSubscriptionsRoutes(v1);
  registerSubscriptionChangeRoutes(v1);
  registerSubscriptionPauseRoutes(v1);
  registerCouponRoutes(v1);
  registerSubscriptionCouponRoutes(v1);
  registerProgressiveBillingRoutes(v1);
  registerFeatureRoutes(v1);
  registerEntitlementRoutes(v1);
  registerUsageAlertRoutes(v1);
  registerCreditsRoutes(v1);
  registerPaymentMethodsRoutes(v1);
  registerPaymentsRoutes(v1);
  registerAdjustmentsRoutes(v1);
  registerCreditNotesRoutes(v1);
  registerTaxCreditNotesRoutes(v1);
  registerReportsRoutes(v1);
  registerRetentionRoutes(v1);
  registerStatementsRoutes(v1);
  registerTestClockRoutes(v1);
  registerCollectionsRoutes(v1);
  registerBatchesRoutes(v1);
  registerWidgetsRoutes(v1, { publicUrl: deps.publicUrl });
  registerEventRoutes(v1);
  registerWebhookEndpointRoutes(v1);
  registerEmandateRoutes(v1);
  registerPortalApiRoutes(v1, { publicUrl: deps.publicUrl });
  registerUsageEventRoutes(v1);
}

/** The Fastify server a service's app is built on, typed by the TypeBox schemas. */
type Server = ReturnType<typeof newServer>;

/** A request's context acting for an account, and the context of a hosted page's request. */
interface RequestContexts {
  /** A request's context acting for an account: its key's under /v1, a capture session's in the frame. */
  accountContext(account: Account, request: FastifyRequest, actor?: Actor): ServiceContext;
  /** The context of a hosted page's request, for the account its token names. */
  hostedPageContext(accountId: number, request: FastifyRequest): Promise<ServiceContext>;
  /** The service's memory, which the key check's kept lookups are part of. */
  memory: ServiceMemory;
}

/** What the routes that call for an API key share: the check of the key, and the Idempotency-Keys' settings. */
interface ApiKeyScope {
  authenticateRequest(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  idempotency: Parameters<typeof registerIdempotency>[1];
}

/** Whether the app is closing, which its standard headers read. */
interface Shutdown {
  closing: boolean;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const shutdown: Shutdown = { closing: false };
  const standardHeaders = standardHeadersOf(shutdown);
  const app = newServer(deps, standardHeaders);
  registerRequestBudgets(app, deps);
  registerErrorsAndBodies(app);
  sendStandardHeaders(app, shutdown, standardHeaders);
  await registerOpenApi(app as unknown as App);
  registerHealthRoutes(app, deps);
  const contexts = requestContexts(deps);
  const apiKeys = await apiKeyScope(app, deps, contexts);
  await registerApi(app, deps, apiKeys);
  registerCaptureFrameRoutes(app as unknown as App, {
    db: deps.storage.db,
    contextFor: contexts.hostedPageContext,
    clock: deps.clock,
  });
  await registerWidgetPages(app, deps, contexts, apiKeys);
  await registerHostedPages(app, deps, contexts);
  return app as unknown as App;
}

/**
 * The headers of every answer, also those made outside Fastify's request cycle (answerFrameworkError). While
 * shutting down, responses close their connections: a keep-alive client would otherwise hold the process open
 * until its idle timeout.
 */
function standardHeadersOf(shutdown: Shutdown) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    setSecurityHeaders(request, reply);
    if (shutdown.closing) reply.header('connection', 'close');
  };
}

/** The Fastify server with the service's logging, limits, timeouts, request ids, router and proxies. */
function newServer(deps: AppDeps, standardHeaders: ReturnType<typeof standardHeadersOf>) {
  return Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new RequestLog(),
    frameworkErrors: (error, request, reply) => answerFrameworkError(error, request, reply, standardHeaders),
    clientErrorHandler: answerClientError,
    bodyLimit: deps.bodyLimitBytes,
    ...serverTimeouts(deps.timeouts),
    // A caller's own X-Request-Id is kept (when it is a plain token) so its logs and ours line up.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    schemaController: { compilersFactory: { buildSerializer: serializersCompiledOnce() } },
    // Only the operator's own proxies may say who the client is; anyone else's X-Forwarded-For is ignored.
    trustProxy: deps.trustedProxies?.length ? deps.trustedProxies : false,
  }).withTypeProvider<TypeBoxTypeProvider>();
}

/** The requests in flight, the customers' turns at moving money and the accounts' budgets of usage events. */
function registerRequestBudgets(app: Server, deps: AppDeps): void {
  trackRequests(app, deps.inflight);
  registerCustomerQueue(app, new CustomerQueue(deps.moneyTurns ?? moneyTurnSettings({})));
  const usageRate = deps.usageRate ?? usageRateSettings({});
  registerUsageBudget(app, usageBudget(usageRate, deps.bodyLimitBytes, deps.wallClock));
}

/** Validation, problems as answers, JSON bodies, and the refusal of URLs and hosts that are not plain. */
function registerErrorsAndBodies(app: Server): void {
  registerValidation(app);
  app.addSchema(ProblemSchema);
  registerErrorHandling(app);
  registerJsonBodies(app);
  refuseNulInUrls(app);
  refuseUnplainHosts(app);
}

/** Every answer's standard headers; from when the app starts closing, a connection's last answer. */
function sendStandardHeaders(
  app: Server,
  shutdown: Shutdown,
  standardHeaders: ReturnType<typeof standardHeadersOf>,
): void {
  app.addHook('preClose', (done) => {
    shutdown.closing = true;
    done();
  });
  app.addHook('onSend', async (request, reply) => standardHeaders(request, reply));
}

/** The favicon, and the liveness and readiness checks (the latter pings the database). */
function registerHealthRoutes(app: Server, deps: AppDeps): void {
  registerFavicon(app);
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await deps.storage.ping();
      return { status: 'ready' };
    } catch {
      return sendProblem(reply, problem(503, 'database_unreachable', 'The database cannot be reached'));
    }
  });
}

/** The contexts requests act in, sharing the service's ports, memory and cap on stored usage. */
function requestContexts(deps: AppDeps): RequestContexts {
  const ports = modulePorts();
  // The service's own: another service in the process (tests start many) keeps its own cap and its full accounts.
  const usageStorage = usageStorageCap(deps.usageStorageBytesPerAccount);
  const memory = deps.memory ?? serviceMemory();
  const accountContext = (account: Account, request: FastifyRequest, actor?: Actor): ServiceContext =>
    contextFor(
      {
        db: deps.storage.db,
        clock: deps.clock,
        wallClock: deps.wallClock,
        log: request.log,
        secrets: deps.secrets,
        mailQueued: deps.mailQueued,
        webhookSender: deps.webhookSender,
        documents: deps.documents,
        usageStorage,
        webhookRules: deps.webhookRules,
        passwordHashing: deps.passwordHashing,
        ports,
        memory,
        providerFetch: deps.providerFetch,
        publicUrl: linkOrigin(request, deps.publicUrl),
        actor,
      },
      account,
    );
  return {
    accountContext,
    memory,
    hostedPageContext: async (accountId, request) =>
      accountContext(await getAccount(deps.storage.db, accountId), request, widgetActor(request)),
  };
}

/** A customer acting in a hosted page: the route, not the URL, which holds the page's token. */
function widgetActor(request: FastifyRequest): Actor {
  return {
    kind: 'widget',
    clientAddress: request.ip,
    requestId: request.id,
    operation: `${request.method} ${request.routeOptions.url ?? ''}`,
  };
}

/**
 * The check of a request's API key, which sets the request's context (failed attempts throttled, rate refusals
 * paused), and the settings of the Idempotency-Keys of the routes that call for one.
 */
async function apiKeyScope(app: Server, deps: AppDeps, contexts: RequestContexts): Promise<ApiKeyScope> {
  const idempotency = {
    db: deps.storage.db,
    clock: deps.clock,
    inflight: deps.inflight,
    secrets: deps.secrets,
    lease: deps.idempotencyLease,
  };
  app.decorateRequest('ctx', null as unknown as ServiceContext);
  const failedAuthentication = await throttleFailedAuthentication(app, deps.authFailuresPerMinute);
  pauseRateRefusals(app);
  const authenticateRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    const credentials = readCredentials(request.headers.authorization);
    if (!credentials) return sendUnauthorized(request, reply, false);
    const authenticated = await authenticate(deps.storage.db, contexts.memory, credentials);
    if (!authenticated) return failedAuthentication(request, reply);
    const { account, apiKeyId } = authenticated;
    request.ctx = contexts.accountContext(account, request, {
      kind: 'api_key',
      apiKeyId,
      clientAddress: request.ip,
      requestId: request.id,
      operation: `${request.method} ${request.routeOptions.url ?? request.url}`,
    });
  };
  return { authenticateRequest, idempotency };
}

/** The API under /v1: an API key on every request, Idempotency-Keys, every module's routes. */
async function registerApi(app: Server, deps: AppDeps, apiKeys: ApiKeyScope): Promise<void> {
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', apiKeys.authenticateRequest);
      registerIdempotency(v1, apiKeys.idempotency);
      registerRoutes(v1, deps);
    },
    { prefix: '/v1' },
  );
}

/**
 * Under /widget: the eMandate API the merchant's server calls with its API key, and the signing pages, whose
 * token names the account.
 */
async function registerWidgetPages(
  app: Server,
  deps: AppDeps,
  contexts: RequestContexts,
  apiKeys: ApiKeyScope,
): Promise<void> {
  await app.register(
    async (widget) => {
      // Spec part 2, eMandates: POST /widget/emandate is called by the merchant's server, authenticated as /v1 is.
      await widget.register(async (api) => {
        api.addHook('onRequest', apiKeys.authenticateRequest);
        api.addHook('onSend', async (_request, reply) => {
          reply.header('cache-control', 'no-store');
        });
        registerIdempotency(api, apiKeys.idempotency);
        registerEmandateWidgetApiRoutes(api);
      });
      // The signing pages: the token in the URL is the signee's capability, and names the account.
      registerEmandatePageRoutes(widget, {
        db: deps.storage.db,
        contextFor: contexts.hostedPageContext,
      });
    },
    { prefix: '/widget' },
  );
}

/** Outside /v1 and /widget: the payment providers' webhooks, the page that pays an invoice, the customer portal. */
async function registerHostedPages(app: Server, deps: AppDeps, contexts: RequestContexts): Promise<void> {
  // Payment providers' webhooks: no API key, the body's signature checked by the gateway's driver.
  await registerGatewayWebhookRoutes(app as unknown as App, {
    db: deps.storage.db,
    contextFor: async (accountId, request) =>
      contexts.accountContext(await getAccount(deps.storage.db, accountId), request),
  });
  // The page that pays one invoice: the signed token in its path names the account and the invoice.
  registerPayPageRoutes(app as unknown as App, {
    secrets: deps.secrets,
    wallClock: deps.wallClock,
    contextFor: contexts.hostedPageContext,
    publicUrl: deps.publicUrl,
  });
  // The customer portal's pages: a contact's session (or the sign-in they lead to) names the account.
  registerPortalRoutes(app as unknown as App, {
    db: deps.storage.db,
    contextFor: contexts.hostedPageContext,
    publicUrl: deps.publicUrl,
    // The service's own: another service in the process (tests start many) must not take its slots.
    passwordChecks: passwordCheckSlots(),
  });
}
