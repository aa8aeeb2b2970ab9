import { ValidationError } from '../../errors.ts';
import { isLoopbackAddress } from '../../http/clientAddress.ts';
import { linkOrigin } from '../../http/origin.ts';
import type { App } from '../../http/types.ts';
import * as auth from './portalAuth.service.ts';
import { CreatePortalSessionBody, PortalSessionOut } from './portal.schemas.ts';

/** POST /v1/portal/sessions: a sign-in link made by the merchant's server (docs/portal.md, "Sign-in links"). */
export function registerPortalApiRoutes(v1: App, options: { publicUrl?: string }): void {
  v1.post(
    '/portal/sessions',
    {
      schema: {
        summary: 'Create a customer portal sign-in link',
        operationId: 'createPortalSession',
        tags: ['Customer portal'],
        description:
          "A single-use link that signs a customer's contact in to the account's portal, valid for 5 minutes, as " +
          "Stripe's billing portal sessions are. Give ContactID, or CustomerID for the customer's first active " +
          'contact with a login. The account needs a PortalSlug (PUT /v1/account). Send the customer to URL ' +
          'straight away; never e-mail it.',
        body: CreatePortalSessionBody,
        response: { 200: PortalSessionOut },
      },
    },
    async (request) => {
      const ctx = request.ctx;
      const slug = ctx.account.portalSlug;
      if (!slug)
        throw ValidationError.field(
          'PortalSlug',
          'the account has no portal: set PortalSlug with PUT /v1/account',
        );
      const body = request.body;
      const returnUrl = checkedReturnUrl(body.ReturnUrl);
      const link = await auth.createSignInLink(ctx, {
        customerId: body.CustomerID,
        contactId: body.ContactID,
        returnUrl,
      });
      // docs/portal.md, "PUBLIC_URL and links": without PUBLIC_URL, away from loopback, the path alone.
      const origin = linkOrigin(request, options.publicUrl) ?? '';
      return { URL: `${origin}/portal/${slug}/link/${link.token}`, ExpiresAt: link.expiresAt };
    },
  );
}

/**
 * A ReturnUrl is an absolute https URL without credentials, the portal links back to it; plain http only on loopback,
 * for development (docs/portal.md, "Sign-in links"): a link to plain http elsewhere could be rewritten on its way.
 */
function checkedReturnUrl(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ValidationError.field('ReturnUrl', 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw ValidationError.field('ReturnUrl', 'must be an https URL (http only for localhost or 127.0.0.1)');
  }
  if (url.username || url.password) throw ValidationError.field('ReturnUrl', 'must not carry credentials');
  return url.toString();
}

/** localhost, 127.0.0.0/8 or [::1]: a URL's hostname that names this machine. */
const isLoopbackHost = (hostname: string) =>
  hostname === 'localhost' || isLoopbackAddress(hostname.replace(/^\[(.*)\]$/, '$1'));
