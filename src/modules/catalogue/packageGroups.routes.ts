import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import * as groups from './packageGroup.service.ts';
import { PackageGroupBody, PackageGroupIdParams, PackageGroupOut } from './packageGroups.schemas.ts';
import { toPackageGroupDto } from './packageGroups.serializer.ts';

const tags = ['Package groups'];

export function registerPackageGroupRoutes(app: App): void {
  app.get(
    '/packagegroups',
    {
      schema: {
        summary: 'List package groups',
        operationId: 'listPackageGroups',
        description: "The account's package groups in creation order.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(PackageGroupOut) },
      },
    },
    async (request) =>
      (await groups.listPackageGroups(request.ctx, pageOf(request.query))).map(toPackageGroupDto),
  );

  app.get(
    '/packagegroups/:packageGroupID',
    {
      schema: {
        summary: 'Get a package group',
        operationId: 'getPackageGroup',
        description: 'One package group.',
        tags,
        params: PackageGroupIdParams,
        response: { 200: PackageGroupOut },
      },
    },
    async (request) =>
      toPackageGroupDto(await groups.getPackageGroup(request.ctx, request.params.packageGroupID)),
  );

  app.post(
    '/packagegroups',
    {
      schema: {
        summary: 'Create a package group',
        operationId: 'createPackageGroup',
        description: 'Creates a group that packages and components can belong to.',
        tags,
        body: PackageGroupBody,
        response: { 201: PackageGroupOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(toPackageGroupDto(await groups.createPackageGroup(request.ctx, request.body.GroupName))),
  );

  app.put(
    '/packagegroups/:packageGroupID',
    {
      schema: {
        summary: 'Rename a package group',
        operationId: 'editPackageGroup',
        description: "Changes the group's name.",
        tags,
        params: PackageGroupIdParams,
        body: PackageGroupBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await groups.renamePackageGroup(request.ctx, request.params.packageGroupID, request.body.GroupName);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/packagegroups/:packageGroupID',
    {
      schema: {
        summary: 'Delete a package group',
        operationId: 'deletePackageGroup',
        tags,
        description: 'Deletes a group; a group that packages or components belong to is a 409.',
        params: PackageGroupIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await groups.deletePackageGroup(request.ctx, request.params.packageGroupID);
      return reply.code(204).send(null);
    },
  );
}
