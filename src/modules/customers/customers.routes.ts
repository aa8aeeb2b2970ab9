import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, emptyBodyAsObject, pageOf } from '../../http/schemas.ts';
import {
  customerWithFigures,
  getCustomerWithFigures,
  withCustomerFigures,
} from '../../readModels/customers.view.ts';
import { deleteCustomer } from '../../flows/deleteCustomer.ts';
import { currencyProblems } from '../catalogue/index.ts';
import * as customers from './customer.service.ts';
import * as customFields from './customField.service.ts';
import {
  ByCustomerIdsBody,
  CreateCustomFieldBody,
  CreateCustomerBody,
  CustomFieldIdParams,
  CustomFieldOut,
  CustomerIdParams,
  CustomerOut,
  CustomerWithCustomFieldsOut,
  CustomerWithPrimaryOut,
  EditCustomerBody,
} from './customers.schemas.ts';
import {
  customerInputFromWire,
  toCustomFieldDto,
  toCustomerByIdsDto,
  toCustomerDto,
  toCustomerWithCustomFieldsDto,
} from './customers.serializer.ts';

const tags = ['Customers'];

export function registerCustomerRoutes(app: App): void {
  app.get(
    '/customers',
    {
      schema: {
        summary: 'List customers',
        operationId: 'listCustomers',
        description:
          "The account's customers in creation order, with their balance and active subscription count.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(CustomerOut) },
      },
    },
    async (request) =>
      (
        await withCustomerFigures(
          request.ctx,
          await customers.listCustomers(request.ctx, pageOf(request.query)),
        )
      ).map(toCustomerDto),
  );

  app.post(
    '/by_customer_ids',
    {
      schema: {
        summary: 'List customers by id',
        operationId: 'listCustomersByIds',
        tags,
        description: 'Customers with the given ids, in creation order; ids of other accounts are left out.',
        querystring: PagingQuery,
        body: ByCustomerIdsBody,
        response: { 200: Type.Array(CustomerWithPrimaryOut) },
      },
    },
    async (request) => {
      const { ids, page, page_size } = request.body;
      const paging = pageOf({
        page: page ?? request.query.page,
        page_size: page_size ?? request.query.page_size,
      });
      return (
        await withCustomerFigures(request.ctx, await customers.listCustomers(request.ctx, paging, ids))
      ).map(toCustomerByIdsDto);
    },
  );

  app.get(
    '/customers/with_customfields',
    {
      schema: {
        summary: 'List customers with custom fields',
        operationId: 'listCustomersWithCustomFields',
        description: "The account's customers in creation order, each with the values of its custom fields.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(CustomerWithCustomFieldsOut) },
      },
    },
    async (request) => {
      const page = await customers.listCustomersWithCustomFields(request.ctx, pageOf(request.query));
      const withFigures = await withCustomerFigures(
        request.ctx,
        page.map((c) => c.customer),
      );
      return withFigures.map((customer, i) => toCustomerWithCustomFieldsDto(customer, page[i]!.customFields));
    },
  );

  app.get(
    '/customers/:customerID',
    {
      schema: {
        summary: 'Get a customer',
        operationId: 'getCustomer',
        description: 'One customer with its balance, active subscription count and status.',
        tags,
        params: CustomerIdParams,
        response: { 200: CustomerOut },
      },
    },
    async (request) => toCustomerDto(await getCustomerWithFigures(request.ctx, request.params.customerID)),
  );

  app.post(
    '/customers',
    {
      schema: {
        summary: 'Create a customer',
        operationId: 'createCustomer',
        description:
          "Creates a customer; only Name is required. CurrencyCode defaults to the account's currency; a taken " +
          'Reference is a 409.',
        tags,
        body: CreateCustomerBody,
        response: { 201: CustomerOut },
      },
      config: {
        checksBesideSchema: (request, reported) => currencyProblems(request.ctx, request.body, reported),
      },
    },
    async (request, reply) => {
      const input = customerInputFromWire(request.body);
      const customer = await customers.createCustomer(request.ctx, { ...input, name: request.body.Name });
      return reply.code(201).send(toCustomerDto(await customerWithFigures(request.ctx, customer)));
    },
  );

  app.put(
    '/customers/:customerID',
    {
      schema: {
        summary: 'Edit a customer',
        operationId: 'editCustomer',
        tags,
        description: 'Changes the fields sent; fields left out keep their values and null clears one.',
        params: CustomerIdParams,
        body: EditCustomerBody,
        response: NoContent,
      },
      config: {
        checksBesideSchema: (request, reported) => currencyProblems(request.ctx, request.body, reported),
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      await customers.editCustomer(
        request.ctx,
        request.params.customerID,
        customerInputFromWire(request.body),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/customers/:customerID',
    {
      schema: {
        summary: 'Delete a customer',
        operationId: 'deleteCustomer',
        description:
          'Deletes the customer with its contacts, notes and custom-field values. One with invoices, subscriptions or ' +
          'recurring invoices is a 409: archive it instead.',
        tags,
        params: CustomerIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteCustomer(request.ctx, request.params.customerID);
      return reply.code(204).send(null);
    },
  );

  const statusRoute = (
    path: string,
    doc: { summary: string; operationId: string; description: string },
    change: typeof customers.setCustomerActive,
    to: boolean,
  ) =>
    app.put(
      `/customers/:customerID/${path}`,
      { schema: { ...doc, tags, params: CustomerIdParams, response: NoContent } },
      async (request, reply) => {
        await change(request.ctx, request.params.customerID, to);
        return reply.code(204).send(null);
      },
    );
  statusRoute(
    'archive',
    {
      summary: 'Archive a customer',
      operationId: 'archiveCustomer',
      description: 'Archives the customer (isActive false; comp_status Archived).',
    },
    customers.setCustomerActive,
    false,
  );
  statusRoute(
    'reopen',
    {
      summary: 'Reopen a customer',
      operationId: 'reopenCustomer',
      description: 'Reopens an archived customer (isActive true).',
    },
    customers.setCustomerActive,
    true,
  );
  statusRoute(
    'suspend',
    {
      summary: 'Suspend a customer',
      operationId: 'suspendCustomer',
      description: 'Suspends the customer (isSuspended true, SuspendedDate set; comp_status Suspended).',
    },
    customers.setCustomerSuspended,
    true,
  );
  statusRoute(
    'unsuspend',
    {
      summary: 'Unsuspend a customer',
      operationId: 'unsuspendCustomer',
      description: 'Lifts a suspension (isSuspended false, SuspendedDate null).',
    },
    customers.setCustomerSuspended,
    false,
  );

  app.get(
    '/customfields',
    {
      schema: {
        summary: 'List custom fields',
        operationId: 'listCustomFields',
        tags,
        description: "The account's custom customer fields, in the order defined.",
        querystring: PagingQuery,
        response: { 200: Type.Array(CustomFieldOut) },
      },
    },
    async (request) =>
      (await customFields.listCustomFields(request.ctx, pageOf(request.query))).map(toCustomFieldDto),
  );

  app.post(
    '/customfields',
    {
      schema: {
        summary: 'Create a custom field',
        operationId: 'createCustomField',
        description: 'Defines a custom customer field by its Key; a taken Key is a 409.',
        tags,
        body: CreateCustomFieldBody,
        response: { 201: CustomFieldOut },
      },
    },
    async (request, reply) => {
      const field = await customFields.createCustomField(request.ctx, request.body.Key);
      return reply.code(201).send(toCustomFieldDto(field));
    },
  );

  app.delete(
    '/customfields/:customFieldID',
    {
      schema: {
        summary: 'Delete a custom field',
        operationId: 'deleteCustomField',
        description: "Deletes the field definition and every customer's value for it.",
        tags,
        params: CustomFieldIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await customFields.deleteCustomField(request.ctx, request.params.customFieldID);
      return reply.code(204).send(null);
    },
  );
}
