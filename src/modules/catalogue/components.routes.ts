import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import { deleteComponent, deleteComponentVersion, editComponent } from '../../flows/componentChanges.ts';
import {
  keepsCataloguePages,
  renderedCataloguePage,
  routeSerializer,
  sendSerialized,
} from './cataloguePages.ts';
import * as components from './component.service.ts';
import * as versions from './componentVersion.service.ts';
import {
  ComponentIdParams,
  ComponentOut,
  CreateComponentBody,
  CreateVersionBody,
  EditComponentBody,
  EditVersionBody,
  VersionOut,
  VersionParams,
} from './components.schemas.ts';
import {
  componentInputFromWire,
  toComponentDto,
  toComponentVersionDto,
  versionCurrenciesFromWire,
} from './components.serializer.ts';

const tags = ['Components'];

export function registerComponentRoutes(app: App): void {
  app.get(
    '/components',
    {
      schema: {
        summary: 'List components',
        operationId: 'listComponents',
        description: "The account's components in creation order, with their versions and prices.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(ComponentOut) },
      },
    },
    async (request, reply) => {
      const { ctx } = request;
      const page = pageOf(request.query);
      if (!keepsCataloguePages(ctx)) return (await components.listComponents(ctx, page)).map(toComponentDto);
      const serialize = routeSerializer(reply);
      const rendered = await renderedCataloguePage(ctx, 'components', page, async () => ({
        pieces: [serialize((await components.listComponents(ctx, page)).map(toComponentDto))],
        versionIds: [],
      }));
      return sendSerialized(reply, rendered.pieces[0]!);
    },
  );

  app.get(
    '/components/:componentID',
    {
      schema: {
        summary: 'Get a component',
        operationId: 'getComponent',
        description: 'One component with its versions and prices.',
        tags,
        params: ComponentIdParams,
        response: { 200: ComponentOut },
      },
    },
    async (request) => toComponentDto(await components.getComponent(request.ctx, request.params.componentID)),
  );

  app.post(
    '/components',
    {
      schema: {
        summary: 'Create a component',
        operationId: 'createComponent',
        tags,
        description: 'Creates a component with its first version (VersionNo 1, the default).',
        body: CreateComponentBody,
        response: { 201: ComponentOut },
      },
    },
    async (request, reply) => {
      const { ComponentVersion: version } = request.body;
      const component = await components.createComponent(
        request.ctx,
        { ...componentInputFromWire(request.body), componentCode: request.body.ComponentCode },
        {
          versionName: version.VersionName,
          isActive: version.isActive,
          currencies: versionCurrenciesFromWire(version.ComponentVersionCurrencies),
        },
      );
      return reply.code(201).send(toComponentDto(component));
    },
  );

  app.put(
    '/components/:componentID',
    {
      schema: {
        summary: 'Edit a component',
        operationId: 'editComponent',
        tags,
        description:
          "Replaces the component's own fields (Descrip left out is null, isActive left out is false); " +
          'ComponentCode, when sent, may change. 200 with an empty body, as the spec says.',
        params: ComponentIdParams,
        body: EditComponentBody,
      },
    },
    async (request, reply) => {
      await editComponent(request.ctx, request.params.componentID, componentInputFromWire(request.body));
      // Spec, Components PUT: "200, empty body".
      return reply.code(200).send();
    },
  );

  app.delete(
    '/components/:componentID',
    {
      schema: {
        summary: 'Delete a component',
        operationId: 'deleteComponent',
        tags,
        description: 'Deletes the component with its versions.',
        params: ComponentIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteComponent(request.ctx, request.params.componentID);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/components/:componentID/versions',
    {
      schema: {
        summary: 'List component versions',
        operationId: 'listComponentVersions',
        description: "The component's versions in VersionNo order, with their prices.",
        tags,
        params: ComponentIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(VersionOut) },
      },
    },
    async (request) =>
      (
        await versions.listComponentVersions(request.ctx, request.params.componentID, pageOf(request.query))
      ).map(toComponentVersionDto),
  );

  app.get(
    '/components/:componentID/versions/:versionno',
    {
      schema: {
        summary: 'Get a component version',
        operationId: 'getComponentVersion',
        description: 'One version of the component, by its VersionNo.',
        tags,
        params: VersionParams,
        response: { 200: VersionOut },
      },
    },
    async (request) =>
      toComponentVersionDto(
        await versions.getComponentVersion(request.ctx, request.params.componentID, request.params.versionno),
      ),
  );

  app.post(
    '/components/:componentID/versions',
    {
      schema: {
        summary: 'Add a component version',
        operationId: 'createComponentVersion',
        tags,
        description: 'Adds a version with the next VersionNo; isDefault true makes it the default.',
        params: ComponentIdParams,
        body: CreateVersionBody,
        response: { 201: VersionOut },
      },
    },
    async (request, reply) => {
      const version = await versions.createComponentVersion(request.ctx, request.params.componentID, {
        versionName: request.body.VersionName,
        isActive: request.body.isActive,
        isDefault: request.body.isDefault,
        currencies: versionCurrenciesFromWire(request.body.ComponentVersionCurrencies),
      });
      return reply.code(201).send(toComponentVersionDto(version));
    },
  );

  app.put(
    '/components/:componentID/versions/:versionno',
    {
      schema: {
        summary: 'Edit a component version',
        operationId: 'editComponentVersion',
        tags,
        description:
          "Edits a version; ComponentVersionCurrencies, when sent, replace the version's prices " +
          '(with new identifiers). isDefault true moves the default here.',
        params: VersionParams,
        body: EditVersionBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await versions.editComponentVersion(request.ctx, request.params.componentID, request.params.versionno, {
        versionName: request.body.VersionName,
        isActive: request.body.isActive,
        isDefault: request.body.isDefault,
        currencies: versionCurrenciesFromWire(request.body.ComponentVersionCurrencies),
      });
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/components/:componentID/versions/:versionno',
    {
      schema: {
        summary: 'Delete a component version',
        operationId: 'deleteComponentVersion',
        tags,
        description: 'Deletes a version; the last version and the default version cannot be deleted (409).',
        params: VersionParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deleteComponentVersion(request.ctx, request.params.componentID, request.params.versionno);
      return reply.code(204).send(null);
    },
  );
}
