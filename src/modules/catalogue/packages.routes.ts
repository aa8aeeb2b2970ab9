import { Type } from '@sinclair/typebox';
import { ValidationError } from '../../errors.ts';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, emptyBodyAsObject, pageOf } from '../../http/schemas.ts';
import { deletePackage, deletePackageVersion, editPackageVersion } from '../../flows/packageChanges.ts';
import {
  packageOut,
  packageSubscriptionCounts,
  packageVersionOut,
  packageVersionsOut,
  packagesOut,
} from '../../readModels/packages.view.ts';
import {
  fillCounts,
  keepsCataloguePages,
  renderedCataloguePage,
  routeSerializer,
  sendSerialized,
} from './cataloguePages.ts';
import * as packages from './package.service.ts';
import * as versions from './packageVersion.service.ts';
import {
  CreatePackageBody,
  DeletePackageBody,
  EditPackageBody,
  PackageIdParams,
  PackageOut,
  PackageQuery,
  VersionBody,
  VersionOut,
  VersionParams,
} from './packages.schemas.ts';
import {
  packageInputFromWire,
  packagesPageWithHoles,
  toPackageDto,
  versionInputFromWire,
} from './packages.serializer.ts';

const tags = ['Packages'];
const versionTags = ['Package versions'];

export function registerPackageRoutes(app: App): void {
  app.get(
    '/packages',
    {
      schema: {
        summary: 'List packages',
        operationId: 'listPackages',
        description:
          "The account's packages in creation order, each with its versions, rates and rate terms.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(PackageOut) },
      },
    },
    async (request, reply) => {
      const { ctx } = request;
      const page = pageOf(request.query);
      if (!keepsCataloguePages(ctx)) return packagesOut(ctx, await packages.listPackages(ctx, page));
      const serialize = routeSerializer(reply);
      // The kept text has holes where the counts go: written with none, filled from their own statement.
      const rendered = await renderedCataloguePage(ctx, 'packages', page, async () =>
        packagesPageWithHoles(
          (await packages.listPackages(ctx, page)).map((pkg) => toPackageDto(pkg, new Map())),
          serialize,
        ),
      );
      const counts = await packageSubscriptionCounts(ctx, rendered.versionIds);
      return sendSerialized(reply, fillCounts(rendered, counts));
    },
  );

  app.get(
    '/packages/:packageID',
    {
      schema: {
        summary: 'Get a package',
        operationId: 'getPackage',
        description: 'One package with its versions, rates and rate terms.',
        tags,
        params: PackageIdParams,
        response: { 200: PackageOut },
      },
    },
    async (request) =>
      packageOut(request.ctx, await packages.getPackage(request.ctx, request.params.packageID)),
  );

  app.post(
    '/packages',
    {
      schema: {
        summary: 'Create a package',
        operationId: 'createPackage',
        tags,
        description: 'Creates a package with its first version (VersionNo 1, the default).',
        body: CreatePackageBody,
        response: { 201: PackageOut },
      },
    },
    async (request, reply) => {
      const created = await packages.createPackage(
        request.ctx,
        packageInputFromWire(request.body),
        versionInputFromWire(request.body.PackageVersion),
      );
      return reply.code(201).send(await packageOut(request.ctx, created));
    },
  );

  app.put(
    '/packages/:packageID',
    {
      schema: {
        summary: 'Edit a package',
        operationId: 'editPackage',
        tags,
        description:
          'Changes the package (not its versions). 200 with an empty body, as the spec says; a Descrip left out ' +
          'keeps its value.',
        params: PackageIdParams,
        body: EditPackageBody,
      },
    },
    async (request, reply) => {
      await packages.editPackage(request.ctx, request.params.packageID, packageInputFromWire(request.body));
      return reply.code(200).send();
    },
  );

  app.delete(
    '/packages/:packageID',
    {
      schema: {
        summary: 'Delete a package',
        operationId: 'deletePackage',
        tags,
        description: 'Deletes a package with its versions; one with subscriptions is a 409.',
        params: PackageIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deletePackage(request.ctx, request.params.packageID);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/packages',
    {
      schema: {
        summary: 'Delete a package (id in the body)',
        operationId: 'deletePackageByBody',
        tags,
        description:
          'The same, with packageID in the body or the query string (the spec does not say where).',
        querystring: PackageQuery,
        body: DeletePackageBody,
        response: NoContent,
      },
      // Most clients send DELETE without a body.
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const packageId = request.body?.packageID ?? request.query.packageID;
      if (packageId === undefined) throw ValidationError.field('packageID', 'is required');
      await deletePackage(request.ctx, packageId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/packages/:packageID/versions',
    {
      schema: {
        summary: 'List package versions',
        operationId: 'listPackageVersions',
        description: "The package's versions in VersionNo order, with their rates and rate terms.",
        tags: versionTags,
        params: PackageIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(VersionOut) },
      },
    },
    async (request) =>
      packageVersionsOut(
        request.ctx,
        await versions.listPackageVersions(request.ctx, request.params.packageID, pageOf(request.query)),
      ),
  );

  app.get(
    '/packages/:packageID/versions/:versionno',
    {
      schema: {
        summary: 'Get a package version',
        operationId: 'getPackageVersion',
        description: 'One version of the package, by its VersionNo.',
        tags: versionTags,
        params: VersionParams,
        response: { 200: VersionOut },
      },
    },
    async (request) =>
      packageVersionOut(
        request.ctx,
        await versions.getVersion(request.ctx, request.params.packageID, request.params.versionno),
      ),
  );

  app.post(
    '/packages/:packageID/versions',
    {
      schema: {
        summary: 'Add a package version',
        operationId: 'createPackageVersion',
        tags: versionTags,
        description: 'Adds a version with the next VersionNo; isDefault true makes it the default.',
        params: PackageIdParams,
        body: VersionBody,
        response: { 201: VersionOut },
      },
    },
    async (request, reply) => {
      const version = await versions.createVersion(
        request.ctx,
        request.params.packageID,
        versionInputFromWire(request.body),
      );
      return reply.code(201).send(await packageVersionOut(request.ctx, version));
    },
  );

  app.put(
    '/packages/:packageID/versions/:versionno',
    {
      schema: {
        summary: 'Replace a package version',
        operationId: 'replacePackageVersion',
        tags: versionTags,
        description: 'Replaces the version (its rates and terms get new identifiers).',
        params: VersionParams,
        body: VersionBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await editPackageVersion(
        request.ctx,
        request.params.packageID,
        request.params.versionno,
        versionInputFromWire(request.body),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/packages/:packageID/versions/:versionno',
    {
      schema: {
        summary: 'Delete a package version',
        operationId: 'deletePackageVersion',
        tags: versionTags,
        description: 'Deletes a version; the only version and the default version are a 409.',
        params: VersionParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await deletePackageVersion(request.ctx, request.params.packageID, request.params.versionno);
      return reply.code(204).send(null);
    },
  );
}
