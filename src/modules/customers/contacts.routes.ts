import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linkOrigin } from '../../http/origin.ts';
import type { App } from '../../http/types.ts';
import { portalUrlOf } from '../auth/index.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import * as contacts from './contact.service.ts';
import {
  ContactIdParams,
  ContactOut,
  ContactsOfCustomerParams,
  CreateContactBody,
  EditContactBody,
} from './contacts.schemas.ts';
import { contactInputFromWire, toContactDto } from './contacts.serializer.ts';

const tags = ['Customer contacts'];

export function registerContactRoutes(app: App, options: { publicUrl?: string } = {}): void {
  /**
   * The portal's address for the credentials e-mail: under PUBLIC_URL, or the loopback origin a local caller used;
   * none elsewhere (docs/portal.md, "PUBLIC_URL and links").
   */
  const linksOf = (request: FastifyRequest): contacts.CredentialsLinks => {
    const origin = linkOrigin(request, options.publicUrl);
    return {
      portalUrl: origin === undefined ? undefined : (portalUrlOf(request.ctx.account, origin) ?? undefined),
    };
  };

  app.get(
    '/customers/:customerID/contacts',
    {
      schema: {
        summary: "List a customer's contacts",
        operationId: 'listCustomerContacts',
        description: "The customer's contacts in creation order (passwords are never returned).",
        tags,
        params: ContactsOfCustomerParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(ContactOut) },
      },
    },
    async (request) =>
      (await contacts.listContacts(request.ctx, pageOf(request.query), request.params.customerID)).map(
        toContactDto,
      ),
  );

  app.get(
    '/customercontacts',
    {
      schema: {
        summary: 'List contacts',
        operationId: 'listContacts',
        description: "The account's contacts in creation order (passwords are never returned).",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(ContactOut) },
      },
    },
    async (request) => (await contacts.listContacts(request.ctx, pageOf(request.query))).map(toContactDto),
  );

  app.get(
    '/customercontacts/:customerContactID',
    {
      schema: {
        summary: 'Get a contact',
        operationId: 'getContact',
        description: 'One contact (its password is never returned).',
        tags,
        params: ContactIdParams,
        response: { 200: ContactOut },
      },
    },
    async (request) => toContactDto(await contacts.getContact(request.ctx, request.params.customerContactID)),
  );

  app.post(
    '/customercontacts',
    {
      schema: {
        summary: 'Create a contact',
        operationId: 'createContact',
        tags,
        description:
          'Adds a contact. An active contact without Username or Password gets generated ones; an active contact is e-mailed its username and password.',
        body: CreateContactBody,
        response: { 201: ContactOut },
      },
    },
    async (request, reply) => {
      const contact = await contacts.createContact(
        request.ctx,
        contactInputFromWire(request.body),
        linksOf(request),
      );
      return reply.code(201).send(toContactDto(contact));
    },
  );

  app.put(
    '/customercontacts/:customerContactID',
    {
      schema: {
        summary: 'Edit a contact',
        operationId: 'editContact',
        tags,
        description:
          'Edits a contact. A blank Username keeps the current one (or generates one for an active contact without); changePassword with a blank Password generates one. The contact is e-mailed when the username or password changes.',
        params: ContactIdParams,
        body: EditContactBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await contacts.editContact(
        request.ctx,
        request.params.customerContactID,
        contactInputFromWire(request.body),
        linksOf(request),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/customercontacts/:customerContactID',
    {
      schema: {
        summary: 'Delete a contact',
        operationId: 'deleteContact',
        description: 'Deletes the contact.',
        tags,
        params: ContactIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await contacts.deleteContact(request.ctx, request.params.customerContactID);
      return reply.code(204).send(null);
    },
  );
}
