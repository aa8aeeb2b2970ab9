import { scriptTag } from '../../http/pinnedScript.ts';
import type { App } from '../../http/types.ts';
import { amendDebiCheck, cancelMandate, registerDebiCheck } from './debiCheck.service.ts';
import * as emandates from './emandate.service.ts';
import { EMANDATE_SCRIPT } from './emandateLoader.ts';
import type { EmandateFlow } from './emandate.ts';
import {
  EmandateAmendBody,
  EmandateBody,
  EmandateCancelBody,
  EmandateDebiCheckBody,
  EmandateCreatedOut,
  EmandateOut,
  EmandateQuery,
} from './emandates.schemas.ts';
import { emandateInputFromWire, toEmandateDto } from './emandates.serializer.ts';
import { PUBLIC_DOWNLOAD_DAYS, mandatePdfFilename, renderMandatePdf } from './mandatePdf.ts';

const tags = ['eMandates'];

const FIELDS_NOTE =
  'The fields of spec part 2, eMandates, checked as DebiCheck mandates are (each problem a 422 naming its field, ' +
  'nothing stored): debit_Frequency Weekly, Fortnightly, Monthly, Quarterly, Biannually, Yearly or AdHoc; ' +
  'debit_ActionDay 1–7 for weekly frequencies, else 1–31 or 99 (last day); debit_MaxAmt between debit_Amt and ' +
  '1.5 × debit_Amt; debit_NameOnStmt at most 10 characters; debit_StartDate not in the past. A debit_ContractRef ' +
  "another eMandate of the account has is a 409. Amounts are in the account's currency. The account number is " +
  'sealed at rest. Answers 200 with the Token (the spec example shows 204, but a body is returned), valid 24 hours ' +
  'while unsigned.';

function createRoute(
  app: App,
  path: string,
  flow: EmandateFlow,
  summary: string,
  operationId: string,
  what: string,
) {
  app.post(
    path,
    {
      schema: {
        summary,
        operationId,
        tags,
        description: `${what}\n\n${FIELDS_NOTE}`,
        body: EmandateBody,
        response: { 200: EmandateCreatedOut },
      },
    },
    async (request) => {
      const { token } = await emandates.createEmandate(
        request.ctx,
        flow,
        emandateInputFromWire(request.body),
      );
      return { Token: token };
    },
  );
}

/** The API under /v1 (spec part 2, eMandates). */
export function registerEmandateRoutes(v1: App): void {
  createRoute(
    v1,
    '/emandate',
    'embedded',
    'Create an eMandate (embedded flow)',
    'createEmandate',
    'Creates an eMandate for the signee to sign in a frame on your page: pass the Token to ' +
      '`EMandate.init({containerID, token, onComplete, onError})` of the embedding script, which your page loads ' +
      'from this service, pinned by its integrity hash (the path never changes; a new script gets a new path): ' +
      `\`${scriptTag('https://billing.example.com', EMANDATE_SCRIPT)}\`. The frame may be shown only on the ` +
      'origin given in AuthDomain.',
  );

  v1.get(
    '/emandate',
    {
      schema: {
        summary: 'Get an eMandate',
        operationId: 'getEmandate',
        tags,
        description:
          "The eMandate with every field: the account number masked but for its last four digits, DateSigned null until signed, and the beneficiary from the account's seller details. An unknown token, or another account's, is a 404.",
        querystring: EmandateQuery,
        response: { 200: EmandateOut },
      },
    },
    async (request) =>
      toEmandateDto(
        await emandates.getEmandate(request.ctx, request.query.Token),
        request.ctx.account.timeZone,
        request.query.Token,
      ),
  );

  // Beyond the spec: docs/spec-decisions.md, "The signed PDF".
  v1.get(
    '/emandate/download',
    {
      schema: {
        summary: 'Download a signed eMandate as PDF',
        operationId: 'getEmandatePdf',
        tags,
        description:
          'Beyond the spec: the signed mandate as a PDF, with your API key, for as long as the mandate exists ' +
          '(cancelled ones too: it is the record of what was agreed). The public link ' +
          `/widget/emandate/download?token= works without a key for ${PUBLIC_DOWNLOAD_DAYS} days after signing, ` +
          'then answers 410. Before the mandate is signed, a 409 emandate_not_signed; another account’s or an ' +
          'unknown token is a 404.',
        querystring: EmandateQuery,
        produces: ['application/pdf'],
        response: {
          200: {
            description: 'The signed mandate as PDF',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
        },
      },
    },
    async (request, reply) => {
      const { mandate, pdf } = await renderMandatePdf(request.ctx, request.query.Token, 'api');
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="${mandatePdfFilename(mandate)}"`)
        .header('cache-control', 'no-store')
        .send(pdf);
    },
  );

  // Beyond the spec: docs/spec-decisions.md, "Cancelling an eMandate".
  v1.put(
    '/emandate/cancel',
    {
      schema: {
        summary: 'Cancel an eMandate',
        operationId: 'cancelEmandate',
        tags,
        description:
          'Beyond the spec: cancels a signed eMandate for good (Status cancelled, DateCancelled set, ' +
          "and a DebiCheck mandate's authentication cancelled at its gateway first, with DebiCheckReasonCode, " +
          'CUST by default; DebiCheckStatus cancelled; a refusal by the gateway is a 409 debicheck_refused and ' +
          'cancels nothing; ' +
          '`emandate.cancelled`). The bank account linked to it becomes invalid (isValid false) and no batch ' +
          'collects under it again; the signed PDF stays downloadable (GET /v1/emandate/download). Answers the ' +
          'mandate. Cancelling a cancelled mandate changes nothing; an unsigned, expired or declined one is a 409 ' +
          "emandate_not_signed. Another account's or an unknown token is a 404.",
        body: EmandateCancelBody,
        response: { 200: EmandateOut },
      },
    },
    async (request) =>
      toEmandateDto(
        await cancelMandate(request.ctx, request.body.Token, request.body.DebiCheckReasonCode ?? null),
        request.ctx.account.timeZone,
        request.body.Token,
      ),
  );

  registerDebiCheckRoutes(v1);
}

/** Beyond the spec: docs/spec-decisions.md, "DebiCheck mandates". */
function registerDebiCheckRoutes(v1: App): void {
  v1.post(
    '/emandate/debicheck',
    {
      schema: {
        summary: 'Register a DebiCheck mandate with the bank',
        operationId: 'registerDebiCheckEmandate',
        tags,
        description:
          "Beyond the spec: asks the debtor's bank, through the netcash gateway named, to authenticate a signed " +
          "DebiCheck mandate in real time (Netcash's DebiCheckAuthenticate, TT1; the call may take up to two " +
          'minutes). Answers the mandate: DebiCheckStatus authenticated or declined when the bank answered at once, ' +
          'else pending until DebiCheckExpires while the debtor approves it with their bank (the daily run asks ' +
          'the gateway and moves it on; `emandate.updated` each time). A mandate that is not a signed DebiCheck ' +
          'mandate is a 409; one pending or authenticated already a 409 debicheck_registered; a refusal by the ' +
          'gateway (its template id missing, its code) a 409 debicheck_refused, the mandate as it was.',
        body: EmandateDebiCheckBody,
        response: { 200: EmandateOut },
      },
    },
    async (request) =>
      toEmandateDto(
        await registerDebiCheck(request.ctx, request.body.Token, request.body.GatewayToken),
        request.ctx.account.timeZone,
        request.body.Token,
      ),
  );

  v1.put(
    '/emandate/debicheck/amend',
    {
      schema: {
        summary: 'Amend a DebiCheck mandate',
        operationId: 'amendDebiCheckEmandate',
        tags,
        description:
          "Beyond the spec: changes an authenticated DebiCheck mandate's debit_Amt and debit_MaxAmt (at most " +
          "1.5 × debit_Amt) through its gateway (Netcash's DebiCheckAmendAuthentication). The mandate is " +
          'pending again until the bank confirms the amended terms, and collects nothing meanwhile. A mandate not ' +
          'authenticated is a 409 debicheck_not_authenticated; a refusal by the gateway a 409 debicheck_refused.',
        body: EmandateAmendBody,
        response: { 200: EmandateOut },
      },
    },
    async (request) =>
      toEmandateDto(
        await amendDebiCheck(request.ctx, request.body.Token, {
          debitAmt: request.body.debit_Amt,
          debitMaxAmt: request.body.debit_MaxAmt ?? null,
        }),
        request.ctx.account.timeZone,
        request.body.Token,
      ),
  );
}

/** POST /widget/emandate: the redirect flow, called by the merchant's server with its API key. */
export function registerEmandateWidgetApiRoutes(widget: App): void {
  createRoute(
    widget,
    '/emandate',
    'redirect',
    'Create an eMandate (redirect flow)',
    'createRedirectEmandate',
    'Creates an eMandate for the signee to sign on our hosted page: send them to `/widget/emandate/{Token}`. ' +
      'With ReturnUrl, the page offers a link back after signing; confirm with GET /v1/emandate or the ' +
      '`emandate.signed` webhook, never the redirect. Authenticated with an API key, as /v1 is.',
  );
}
