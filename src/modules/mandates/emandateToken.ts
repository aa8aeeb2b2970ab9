import crypto from 'node:crypto';
import type { ServiceContext } from '../../context.ts';

/**
 * The eMandate token (docs/spec-decisions.md, "eMandate tokens at rest"): a bearer capability, so the database keeps
 * only its SHA-256, by which every request that brings the token finds the mandate. The token is a keyed digest of
 * a random seed, as the capture widget's HashToken is of its SessionToken: the service can give it again (on the
 * bank account linked to the mandate, as the spec shows it there), and the database alone cannot.
 */

/** 32 random bytes as hex: what a new mandate's token is derived from. */
export function newTokenSeed(): string {
  return crypto.randomBytes(32).toString('hex');
}

/** The token of a seed: 64 hex digits (spec: Alpha Numeric), made only with the service's key. */
export const tokenFromSeed = (ctx: Pick<ServiceContext, 'secrets'>, seed: string): string =>
  ctx.secrets.fingerprint(`emandate-token:${seed}`);

/** What is stored of a token, and looked up by. */
export const tokenDigest = (token: string): string =>
  crypto.createHash('sha256').update(token, 'utf8').digest('hex');
