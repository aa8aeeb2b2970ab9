import type { EventObjectRenderer } from '../modules/events/index.ts';
import { emandatesByIds, toEmandateDto } from '../modules/mandates/index.ts';
import { numericRenderer } from './eventObjectRenderer.ts';

/** An eMandate as GET /v1/emandate returns it (the account number masked). */
export const mandatesEventObjects: Record<string, EventObjectRenderer> = {
  emandate: numericRenderer(emandatesByIds, (ctx, found) =>
    found.map((mandate) => toEmandateDto(mandate, ctx.account.timeZone)),
  ),
};
