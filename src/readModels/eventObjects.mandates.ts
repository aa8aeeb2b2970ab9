import type { EventObjectRenderer } from '../modules/events/index.ts';
import { emandatesByIds, toEmandateDto } from '../modules/mandates/index.ts';
import { numericRenderer } from './eventObjectRenderer.ts';

/**
 * An eMandate as GET /v1/emandate returns it (the account number masked), its Token null: events are stored and
 * sent on, and the capability is not theirs (docs/spec-decisions.md, "eMandate tokens at rest").
 */
export const mandatesEventObjects: Record<string, EventObjectRenderer> = {
  emandate: numericRenderer(emandatesByIds, (ctx, found) =>
    found.map((mandate) => toEmandateDto(mandate, ctx.account.timeZone, null)),
  ),
};
