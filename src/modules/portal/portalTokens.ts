import crypto from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import type { ContactCredentials } from '../customers/index.ts';

/** What the portal's sessions and tokens are made of (portalAuth.service.ts, passwordReset.service.ts). */

/** Sessions and tokens are kept only as their SHA-256. */
export const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** 32 random bytes: session ids and tokens (256 bits, above the 128 the design asks for). */
export const randomToken = () => crypto.randomBytes(32).toString('base64url');

/**
 * Portal security times (sessions and their timeouts, sign-in pauses, reset tokens, sign-in links) run on wall time
 * (docs/architecture.md, "Two clocks"): a person waits them out in real minutes, and a test account's standing clock
 * would otherwise keep its sessions and pauses alive until the test clock moved.
 */
export const wallNow = (ctx: ServiceContext) => ctx.wallClock.now().getTime();
export const at = (ctx: ServiceContext, plusMs = 0) => new Date(wallNow(ctx) + plusMs).toISOString();
export const HOUR_MS = 60 * 60_000;

/**
 * Whether a session or token was made under the contact's current login and the account's current slug
 * (docs/spec-decisions.md, "Customer portal"): a password or e-mail changed through the API, a deactivation, or a
 * slug set, changed or cleared moves these on in the lower modules, and whatever the portal made before stops
 * working, even after the contact is reactivated or the slug set back.
 */
export const madeUnderCurrentLogin = (
  ctx: ServiceContext,
  made: { loginVersion: number; portalEpoch: number },
  contact: ContactCredentials,
) => made.loginVersion === contact.loginVersion && made.portalEpoch === ctx.account.portalEpoch;
