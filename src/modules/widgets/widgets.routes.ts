import type { FastifyRequest } from 'fastify';
import { linkOrigin } from '../../http/origin.ts';
import { ValidationError } from '../../errors.ts';
import { NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { completeCaptureSession, createCaptureSession, getCaptureSession } from './captureSession.service.ts';
import {
  CaptureSessionOut,
  CompleteCaptureSessionBody,
  CreateCaptureSessionBody,
  SessionTokenParams,
} from './widgets.schemas.ts';
import { captureSessionInputFromWire, toCaptureSessionDto } from './widgets.serializer.ts';
import { Type } from '@sinclair/typebox';
import { captureHtml } from './widgetAssets.ts';

const tags = ['Capture widget'];

export interface WidgetsRoutesOptions {
  /** Where browsers reach the service (PUBLIC_URL); undefined: links for loopback requests only (linkOrigin). */
  publicUrl?: string;
}

export function registerWidgetsRoutes(app: App, options: WidgetsRoutesOptions = {}): void {
  /**
   * Where the browser finds the loader and the frame: PUBLIC_URL, or a loopback request's origin; elsewhere the path
   * alone, never a host the request named (docs/portal.md, "PUBLIC_URL and links").
   */
  const serviceOrigin = (request: FastifyRequest) => linkOrigin(request, options.publicUrl) ?? '';

  app.post(
    '/widgets/capturepaymethod/create',
    {
      schema: {
        summary: 'Create a capture session',
        operationId: 'createCaptureSession',
        tags,
        description:
          'A hosted frame that captures a card for the test gateway’s vault, and charges Amount when SaleType sells. ' +
          'Keep SessionToken on your server; put Html in your page, served from AuthDomain. Confirm with ' +
          'GET …/get/{SessionToken} or the capture_session.captured webhook, then link the card to a customer ' +
          'with PUT …/complete.',
        body: CreateCaptureSessionBody,
        response: { 200: CaptureSessionOut },
      },
    },
    async (request) =>
      toCaptureSessionDto(
        await createCaptureSession(request.ctx, captureSessionInputFromWire(request.body)),
        serviceOrigin(request),
      ),
  );

  app.put(
    '/widgets/capturepaymethod/complete',
    {
      schema: {
        summary: 'Complete a capture session',
        operationId: 'completeCaptureSession',
        tags,
        description:
          'Links what the session captured to the customer: the card becomes a payment method, a sale a payment ' +
          '(allocated to invoiceID when the session names one). The session is named by its SessionToken or, as ' +
          'events carry it, its iframeCapturePayID: one of the two. The same customer again is a 204; another customer, ' +
          'or a session that captured nothing, a 409; a day after Expires, a 410.',
        body: CompleteCaptureSessionBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      const { customerID, SessionToken, iframeCapturePayID } = request.body;
      // One of the two names the session: the token create answered, or the id events carry.
      if ((SessionToken === undefined) === (iframeCapturePayID === undefined)) {
        const message = 'send exactly one of SessionToken and iframeCapturePayID';
        throw new ValidationError([
          { field: 'SessionToken', message },
          { field: 'iframeCapturePayID', message },
        ]);
      }
      await completeCaptureSession(request.ctx, {
        customerId: customerID,
        ...(SessionToken !== undefined ? { sessionToken: SessionToken } : { sessionId: iframeCapturePayID! }),
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/widgets/capturepaymethod/get/:SessionToken',
    {
      schema: {
        summary: 'Get a capture session',
        operationId: 'getCaptureSession',
        tags,
        description:
          'The session with its State and what it captured (paymentMethodToken, transactionID). 200, where the ' +
          'spec’s example shows 201.',
        params: SessionTokenParams,
        response: { 200: CaptureSessionOut },
      },
    },
    async (request) =>
      toCaptureSessionDto(
        await getCaptureSession(request.ctx, request.params.SessionToken),
        serviceOrigin(request),
      ),
  );

  app.get(
    '/widgets/capturepaymethod/build/:SessionToken',
    {
      schema: {
        summary: "Build a capture session's markup",
        operationId: 'buildCaptureSession',
        tags,
        description:
          'The Html of the session as a JSON string: its container and the loader script with its integrity hash.',
        params: SessionTokenParams,
        response: { 200: Type.String({ description: 'The container and the loader script' }) },
      },
    },
    async (request, reply) => {
      const session = await getCaptureSession(request.ctx, request.params.SessionToken);
      // A JSON string, as every /v1 answer is JSON (Fastify would send a returned string as plain text).
      return reply
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(captureHtml(serviceOrigin(request), session.id, session.hashToken)));
    },
  );
}
