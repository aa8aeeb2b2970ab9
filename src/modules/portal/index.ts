/**
 * The customer portal: a customer's contacts sign in with their Username and Password and see their invoices
 * (docs/portal.md, docs/design/portal.md). Routes: portal.routes.ts (the pages under /portal/{slug}/, one
 * *.pages.ts file per part) and portalApi.routes.ts (POST /v1/portal/sessions). It sits above every other module;
 * none depends on it.
 */
export {
  ABSOLUTE_TIMEOUT_MS,
  IDLE_TIMEOUT_MS,
  LOCK_MS,
  passwordCheckSlots,
  SIGN_IN_LINK_MS,
  USERNAME_FAILURES,
} from './portalAuth.service.ts';
export { RESET_TOKEN_MS } from './passwordReset.service.ts';
