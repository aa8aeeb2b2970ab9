import crypto from 'node:crypto';
import type { Kysely, Migration } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/** What this migration seals with: the service's SecretBox (src/security/secretBox.ts), handed in by migrate.ts. */
export interface MigrationSealer {
  seal(plain: string): string;
}

/** Rows changed per statement batch: every table here is read a page at a time, by id. */
const PAGE = 500;

/** A payment method's token of our own, as the service makes one (paymentMethods' newPaymentMethodToken). */
const ownToken = () => `pm_${crypto.randomBytes(12).toString('hex')}`;

/**
 * A gateway vault's token charges the card it stands for (with the gateway's keys, which the service holds): a
 * Paystack authorization code with its payer's e-mail, a Stripe customer and payment method, the test gateway's
 * token. Until now it was kept in clear and shown as the payment method's token (PrimaryPaymentMethodInfo, the
 * capture widget's paymentMethodToken), and so went into events, webhooks and the audit log. From now on
 * (docs/spec-decisions.md, "Payment-method tokens"; docs/gateways.md, "Provider tokens are sealed"):
 * - payment_methods: `token` is a token of our own (`pm_` and 24 hex digits, as bank accounts already had), and a
 *   card's vault token is in `vault_token_sealed`;
 * - capture_sessions: `method_token` is the kept card's token of our own (its payment method's, once completed),
 *   and the vault's is in `method_vault_token_sealed`;
 * - collection_attempts: the token an attempt charged is sealed in place (`token` renamed `token_sealed`);
 * - events and audit entries show the token of our own where they showed the vault's;
 * - gateway_calls: a vault's answer is recorded without its token, as a card setup's already was.
 * The key is loaded only when there is something to seal (`sealer`); without one, such rows stop the migration.
 */
export function sealedProviderTokens(sealer: (() => MigrationSealer) | undefined): Migration {
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>): Promise<void> {
      // The key first, before anything changes: SQLite's schema changes are not undone with a failed migration.
      const box = (await hasTokensToSeal(db)) ? keyOf(sealer) : undefined;
      const seal = (plain: string): string => {
        if (!box) throw new Error('migration 0067 found a token to seal after it found none');
        return box.seal(plain);
      };
      // NOTE: SQLite adds one column per ALTER TABLE. The attempts' column is renamed, not dropped and added, so
      // that it stays NOT NULL.
      await db.schema.alterTable('payment_methods').addColumn('vault_token_sealed', 'text').execute();
      await db.schema.alterTable('capture_sessions').addColumn('method_vault_token_sealed', 'text').execute();
      await db.schema.alterTable('collection_attempts').renameColumn('token', 'token_sealed').execute();
      await sealPaymentMethods(db, seal);
      await sealCaptureSessions(db, seal);
      await sealCollectionAttempts(db, seal);
      await showOwnTokens(db);
      await dropVaultTokensFromCalls(db);
    },
  };
}

function keyOf(sealer: (() => MigrationSealer) | undefined): MigrationSealer {
  if (!sealer) {
    throw new Error(
      'migration 0067 seals the stored payment-method tokens and needs the encryption key: run `billing migrate`',
    );
  }
  return sealer();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function hasTokensToSeal(db: Kysely<any>): Promise<boolean> {
  const found = await Promise.all([
    db.selectFrom('payment_methods').select('id').where('method_type', '=', 'credit_card').limit(1).execute(),
    db.selectFrom('capture_sessions').select('id').where('method_token', 'is not', null).limit(1).execute(),
    db.selectFrom('collection_attempts').select('id').limit(1).execute(),
  ]);
  return found.some((rows) => rows.length > 0);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

async function sealPaymentMethods(db: Db, seal: (plain: string) => string): Promise<void> {
  for (let after = 0; ;) {
    const rows: { id: number; token: string }[] = await db
      .selectFrom('payment_methods')
      .select(['id', 'token'])
      .where('method_type', '=', 'credit_card')
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      await db
        .updateTable('payment_methods')
        .set({ vault_token_sealed: seal(row.token), token: ownToken() })
        .where('id', '=', row.id)
        .execute();
    }
    after = Number(rows[rows.length - 1]!.id);
  }
}

/**
 * A session that kept its card for a customer shows its payment method's new token; one still waiting on its
 * challenge shows none (the code from now on keeps only the sealed token then); any other, a new one.
 */
async function sealCaptureSessions(db: Db, seal: (plain: string) => string): Promise<void> {
  for (let after = 0; ;) {
    const rows: { id: number; method_token: string; payment_method_id: number | null; state: string }[] =
      await db
        .selectFrom('capture_sessions')
        .select(['id', 'method_token', 'payment_method_id', 'state'])
        .where('method_token', 'is not', null)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      const kept =
        row.payment_method_id === null
          ? undefined
          : await db
              .selectFrom('payment_methods')
              .select('token')
              .where('id', '=', row.payment_method_id)
              .where('method_type', '=', 'credit_card')
              .executeTakeFirst();
      const shown = row.state === 'challenging' ? null : ((kept?.token as string | undefined) ?? ownToken());
      await db
        .updateTable('capture_sessions')
        .set({ method_vault_token_sealed: seal(row.method_token), method_token: shown })
        .where('id', '=', row.id)
        .execute();
    }
    after = Number(rows[rows.length - 1]!.id);
  }
}

async function sealCollectionAttempts(db: Db, seal: (plain: string) => string): Promise<void> {
  for (let after = 0; ;) {
    const rows: { id: number; token_sealed: string }[] = await db
      .selectFrom('collection_attempts')
      .select(['id', 'token_sealed'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      await db
        .updateTable('collection_attempts')
        .set({ token_sealed: seal(row.token_sealed) })
        .where('id', '=', row.id)
        .execute();
    }
    after = Number(rows[rows.length - 1]!.id);
  }
}

/** What the events and audit entries of a resource showed as a token, and what they show now (null: gone). */
interface TokenLookups {
  sessionToken(sessionId: string): Promise<string | null>;
  methodToken(paymentMethodId: number): Promise<string | null>;
}

/**
 * A JSON text with a capture session's `paymentMethodToken` and a PrimaryPaymentMethodInfo's `Token` (an object
 * with `paymentMethodID` beside it) made the tokens of our own; the text itself when it has neither.
 */
async function withOwnTokens(
  text: string | null,
  resourceId: string,
  lookups: TokenLookups,
): Promise<string | null> {
  if (text === null || !(text.includes('"paymentMethodToken"') || text.includes('"Token"'))) return text;
  const walk = async (value: unknown): Promise<unknown> => {
    if (Array.isArray(value)) return Promise.all(value.map(walk));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) out[name] = await walk(inner);
    if (typeof out['paymentMethodToken'] === 'string') {
      out['paymentMethodToken'] = await lookups.sessionToken(resourceId);
    }
    if (typeof out['Token'] === 'string' && typeof out['paymentMethodID'] === 'number') {
      out['Token'] = await lookups.methodToken(out['paymentMethodID']);
    }
    return out;
  };
  const changed = JSON.stringify(await walk(JSON.parse(text)));
  return changed === JSON.stringify(JSON.parse(text)) ? text : changed;
}

async function showOwnTokens(db: Db): Promise<void> {
  const lookups: TokenLookups = {
    async sessionToken(sessionId) {
      if (!/^\d+$/.test(sessionId)) return null;
      const row = await db
        .selectFrom('capture_sessions')
        .select('method_token')
        .where('id', '=', Number(sessionId))
        .executeTakeFirst();
      return (row?.method_token as string | null | undefined) ?? null;
    },
    async methodToken(paymentMethodId) {
      const row = await db
        .selectFrom('payment_methods')
        .select('token')
        .where('id', '=', paymentMethodId)
        .executeTakeFirst();
      return (row?.token as string | undefined) ?? null;
    },
  };
  for (const resourceType of ['capture_session', 'customer']) {
    for (let after = ''; ;) {
      const events: { id: string; resource_id: string; payload: string }[] = await db
        .selectFrom('events')
        .select(['id', 'resource_id', 'payload'])
        .where('resource_type', '=', resourceType)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute();
      if (events.length === 0) break;
      for (const event of events) {
        const payload = await withOwnTokens(event.payload, event.resource_id, lookups);
        if (payload !== event.payload) {
          await db.updateTable('events').set({ payload }).where('id', '=', event.id).execute();
        }
      }
      after = events[events.length - 1]!.id;
    }
    for (let after = 0; ;) {
      const entries: { id: number; resource_id: string; before: string | null; after: string | null }[] =
        await db
          .selectFrom('audit_log')
          .select(['id', 'resource_id', 'before', 'after'])
          .where('resource_type', '=', resourceType)
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute();
      if (entries.length === 0) break;
      for (const entry of entries) {
        const before = await withOwnTokens(entry.before, entry.resource_id, lookups);
        const afterText = await withOwnTokens(entry.after, entry.resource_id, lookups);
        if (before !== entry.before || afterText !== entry.after) {
          await db
            .updateTable('audit_log')
            .set({ before, after: afterText })
            .where('id', '=', entry.id)
            .execute();
        }
      }
      after = Number(entries[entries.length - 1]!.id);
    }
  }
}

async function dropVaultTokensFromCalls(db: Db): Promise<void> {
  for (let after = 0; ;) {
    const calls: { id: number; result: string | null }[] = await db
      .selectFrom('gateway_calls')
      .select(['id', 'result'])
      .where('operation', '=', 'vault_card')
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (calls.length === 0) break;
    for (const call of calls) {
      const answer =
        call.result === null ? null : (JSON.parse(call.result) as Record<string, unknown> | null);
      if (answer && typeof answer === 'object' && typeof answer['token'] === 'string') {
        await db
          .updateTable('gateway_calls')
          .set({ result: JSON.stringify({ ...answer, token: '[kept]' }) })
          .where('id', '=', call.id)
          .execute();
      }
    }
    after = Number(calls[calls.length - 1]!.id);
  }
}
