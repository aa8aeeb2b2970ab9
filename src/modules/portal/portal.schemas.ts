import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.ts';

export const CreatePortalSessionBody = Type.Object(
  {
    CustomerID: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'The customer; its first active contact with a login signs in',
        examples: [42],
      }),
    ),
    ContactID: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The contact who signs in', examples: [7] }),
    ),
    ReturnUrl: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 2000,
          description:
            "An absolute https URL the portal's pages link back to (your site); http only for localhost, 127.0.0.0/8 or [::1]",
          examples: ['https://shop.example.com/account'],
        }),
      ),
    ),
  },
  { examples: [{ CustomerID: 42, ReturnUrl: 'https://shop.example.com/account' }] },
);
export type CreatePortalSessionBody = Static<typeof CreatePortalSessionBody>;

export const PortalSessionOut = Type.Object(
  {
    URL: Type.String({
      description: 'The single-use sign-in link; send the customer to it at once',
      examples: ['https://billing.example.com/portal/acme/link/3q2-7wEXAMPLEtoken'],
    }),
    ExpiresAt: Type.String({
      format: 'date-time',
      description: 'When the link stops working (5 minutes)',
      examples: ['2026-03-15T10:05:00.000Z'],
    }),
  },
  { $id: 'PortalSession' },
);

/** The portal's page addresses: /portal/{slug}/… (pages, not API: hidden from /openapi.json). */
export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 100 }) });
export const TokenParams = Type.Object({
  slug: Type.String({ maxLength: 100 }),
  token: Type.String({ maxLength: 200 }),
});
export const IdParams = Type.Object({
  slug: Type.String({ maxLength: 100 }),
  id: Type.String({ maxLength: 20 }),
});
export const PageQuery = Type.Object({ page: Type.Optional(Type.String({ maxLength: 6 })) });
