import crypto from 'node:crypto';
import { inTransaction, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { isEmailAddress, optionalText } from '../../core/text.ts';
import { generatePassword, passwordHashingOf, passwordPolicyProblem } from '../../security/passwords.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import type { DocumentSeller } from '../auth/index.ts';
import { messageBody, queueMail } from '../mail/index.ts';
import type { OutgoingMail } from '../mail/index.ts';
import * as repo from './contact.repository.ts';
import type { Contact } from './customer.ts';
import { assertCustomerExists } from './customer.service.ts';
import { usernameKey } from './contactCredentials.service.ts';

export interface ContactInput {
  customerId: number;
  name: string;
  lastName: string;
  email: string;
  username?: string | null;
  password?: string | null;
  cell?: string | null;
  isActive?: boolean;
  /** Edit only: the password is to change; blank means generate one. */
  changePassword?: boolean;
}

/** Where the credentials e-mail sends the contact: the portal's full address, when the account has a portal. */
export interface CredentialsLinks {
  portalUrl?: string;
}

/** A password is used exactly as sent (never trimmed); only an empty one or null counts as not given. */
function givenPassword(password: string | null | undefined): string | undefined {
  return password ? password : undefined;
}

function checkedFields(input: ContactInput): { name: string; lastName: string; email: string } {
  const problems: FieldProblem[] = [];
  const name = input.name.trim();
  const lastName = input.lastName.trim();
  const email = input.email.trim();
  if (name === '') problems.push({ field: 'Name', message: 'must not be blank' });
  if (lastName === '') problems.push({ field: 'LastName', message: 'must not be blank' });
  if (!isEmailAddress(email)) problems.push({ field: 'Email', message: 'must be an e-mail address' });
  const password = givenPassword(input.password);
  const policy = password ? passwordPolicyProblem(password) : undefined;
  if (policy) problems.push({ field: 'Password', message: policy });
  if (problems.length) throw new ValidationError(problems);
  return { name, lastName, email };
}

/** Letters and digits without look-alikes (no 0/o, 1/l/i), for the random part of a generated username. */
const SUFFIX_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const SUFFIX_LENGTH = 6;

/**
 * A readable username from the contact's name with a random suffix (jsmith-k3x9pz), free in the account. The suffix
 * keeps generated usernames from being guessed from a name (docs/spec-decisions.md, "Customer contacts"): 31^6, near
 * 900 million, for each name. Usernames generated before it (jsmith, jsmith2) stay as they are.
 */
async function generateUsername(
  ctx: ServiceContext,
  name: string,
  lastName: string,
  email: string,
): Promise<string> {
  const clean = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9]/g, '')
      .toLowerCase();
  const base = (clean(name.slice(0, 1) + lastName) || clean(email.split('@')[0] ?? '') || 'contact').slice(
    0,
    80,
  );
  for (;;) {
    const suffix = Array.from(
      { length: SUFFIX_LENGTH },
      () => SUFFIX_ALPHABET[crypto.randomInt(SUFFIX_ALPHABET.length)],
    ).join('');
    const candidate = `${base}-${suffix}`;
    if (
      (await repo.findContactIdsByUsernameKey(ctx.db, ctx.account.id, usernameKey(candidate))).length === 0
    ) {
      return candidate;
    }
  }
}

/**
 * A username is refused when another contact of the account holds it in any letter case: sign-in ignores case
 * (docs/spec-decisions.md, "Customer contacts"), so "Bob" beside "bob" would be one login for two contacts.
 */
async function assertUsernameFree(ctx: ServiceContext, username: string, contactId?: number): Promise<void> {
  const holders = await repo.findContactIdsByUsernameKey(ctx.db, ctx.account.id, usernameKey(username));
  if (holders.some((holder) => holder !== contactId)) {
    throw new ConflictError(
      'username_taken',
      `Username "${username}" belongs to another contact (usernames are compared without regard to case)`,
    );
  }
}

type UsernameChoice = { given: string | null } | { generate: () => Promise<string> };

const USERNAME_ATTEMPTS = 5;

/**
 * Runs `write` with the contact's username. A given username that is taken is a 409; a generated one that a
 * concurrent request took between choosing and writing is generated again.
 */
async function writeWithUsername<T>(
  choice: UsernameChoice,
  write: (username: string | null) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const username = 'given' in choice ? choice.given : await choice.generate();
    try {
      return await write(username);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if ('given' in choice || attempt >= USERNAME_ATTEMPTS) {
        throw new ConflictError('username_taken', `Username "${username}" belongs to another contact`);
      }
    }
  }
}

/**
 * The message that tells a contact its login (spec, Customer contacts): its username and password, where the portal
 * is when the account has one, and the seller's details (docs/portal.md, "E-mail"). The outbox seals the body, which
 * carries the password.
 */
function credentialsMail(
  ctx: ServiceContext,
  to: string,
  name: string,
  credentials: { username: string | null; password?: string },
  about: { seller: DocumentSeller; portalUrl: string | undefined },
): OutgoingMail {
  const subject = `Your ${ctx.account.name} customer portal login`;
  const { seller, portalUrl } = about;
  const figures: [string, string][] = [['Username', credentials.username ?? '(none)']];
  if (credentials.password) figures.push(['Password', credentials.password]);
  const body = messageBody({
    title: subject,
    greeting: `Hello ${name},`,
    blocks: [
      { paragraph: `Your login for the ${ctx.account.name} customer portal:` },
      { figures },
      ...(portalUrl ? [{ link: portalUrl, text: 'Sign in to the customer portal' }] : []),
      { paragraph: 'Keep these details safe. If you did not expect this message, tell us.' },
    ],
    signature: [mailSenderName(seller), ...sellerLines(seller)],
  });
  return { to, subject, ...body };
}

export async function getContact(ctx: ServiceContext, contactId: number): Promise<Contact> {
  const contact = await repo.findContact(ctx.db, ctx.account.id, contactId);
  if (!contact) throw new NotFoundError('Customer contact', contactId);
  return contact;
}

export async function listContacts(ctx: ServiceContext, page: Page, customerId?: number): Promise<Contact[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return repo.listContacts(ctx.db, ctx.account.id, page, customerId);
}

/**
 * Spec, Customer contacts: an active contact without a username gets a generated one, and without a password a
 * generated one; the contact is e-mailed the username and password. The mail is queued in the same transaction.
 */
export async function createContact(
  ctx: ServiceContext,
  input: ContactInput,
  links: CredentialsLinks = {},
): Promise<Contact> {
  const fields = checkedFields(input);
  await assertCustomerExists(ctx, input.customerId);
  const isActive = input.isActive ?? true;
  const given = optionalText(input.username) ?? null;
  if (given) await assertUsernameFree(ctx, given);
  const usernameChoice: UsernameChoice =
    given || !isActive
      ? { given }
      : { generate: () => generateUsername(ctx, fields.name, fields.lastName, fields.email) };
  const password = givenPassword(input.password) ?? (isActive ? generatePassword() : null);
  const passwordHash = password ? await passwordHashingOf(ctx).hash(password) : null;
  // Read before the transaction: the mail is written inside it, and SQLite has one connection.
  const seller = await documentSeller(ctx);

  const contactId = await writeWithUsername(usernameChoice, (username) =>
    ctx.db.transaction().execute(async (trx) => {
      const id = await repo.insertContact(trx, {
        account_id: ctx.account.id,
        customer_id: input.customerId,
        name: fields.name,
        last_name: fields.lastName,
        email: fields.email,
        cell: optionalText(input.cell) ?? null,
        username,
        username_key: username === null ? null : usernameKey(username),
        password_hash: passwordHash,
        is_active: isActive,
        created_at: ctx.clock.now().toISOString(),
      });
      const ref = contactRef(id);
      const events: EventToEmit[] = [{ type: 'customer_contact.created', ref }];
      if (isActive) {
        await queueMail(
          trx,
          ctx,
          ctx.account.id,
          credentialsMail(
            ctx,
            fields.email,
            fields.name,
            { username, password: password ?? undefined },
            { seller, portalUrl: links.portalUrl },
          ),
        );
        events.push({ type: 'customer_contact.credentials_sent', ref });
      }
      await emitEvents(inTransaction(ctx, trx), events);
      return id;
    }),
  );
  if (isActive) ctx.mailQueued();
  return getContact(ctx, contactId);
}

/**
 * Spec: on edit, an active contact with a blank username gets one generated; we keep the username a contact
 * already has (docs/spec-decisions.md). With changePassword and a blank password a password is generated. The contact is e-mailed when
 * the username or password changed.
 */
export async function editContact(
  ctx: ServiceContext,
  contactId: number,
  input: ContactInput,
  links: CredentialsLinks = {},
): Promise<void> {
  const current = await getContact(ctx, contactId);
  const fields = checkedFields(input);
  if (input.customerId !== current.customerId) await assertCustomerExists(ctx, input.customerId);
  const isActive = input.isActive ?? current.isActive;

  const given = optionalText(input.username) ?? current.username;
  if (given && given !== current.username) await assertUsernameFree(ctx, given, contactId);
  const usernameChoice: UsernameChoice =
    given || !isActive
      ? { given }
      : { generate: () => generateUsername(ctx, fields.name, fields.lastName, fields.email) };

  let password = givenPassword(input.password);
  // Spec: changePassword with a blank password generates one. So does activating a contact that never had a
  // password: an active contact is told its login, and a login without a password would be useless.
  const needsPassword =
    input.changePassword || !(await repo.contactHasPassword(ctx.db, ctx.account.id, contactId));
  if (!password && isActive && needsPassword) password = generatePassword();
  const passwordHash = password ? await passwordHashingOf(ctx).hash(password) : undefined;
  const seller = await documentSeller(ctx);

  const credentialsChanged = await writeWithUsername(usernameChoice, (username) =>
    ctx.db.transaction().execute(async (trx) => {
      const tctx = inTransaction(ctx, trx);
      const ref = contactRef(contactId);
      const before = await snapshotResource(tctx, ref);
      const updated = await repo.updateContact(trx, ctx.account.id, contactId, {
        customer_id: input.customerId,
        name: fields.name,
        last_name: fields.lastName,
        email: fields.email,
        ...(input.cell !== undefined ? { cell: optionalText(input.cell) } : {}),
        username,
        username_key: username === null ? null : usernameKey(username),
        ...(passwordHash ? { password_hash: passwordHash } : {}),
        is_active: isActive,
      });
      // docs/spec-decisions.md, "Customer portal": a new password or e-mail address, or a deactivation, moves the
      // login on, so the portal's sessions and unused reset or sign-in links made before it stop working (the
      // portal sits above this module and compares on every use).
      if (passwordHash || fields.email !== current.email || (current.isActive && !isActive)) {
        await repo.bumpLoginVersion(trx, ctx.account.id, contactId);
      }
      // Deleted since it was read: nothing to announce.
      if (!updated) throw new NotFoundError('Customer contact', contactId);
      const changed = username !== current.username || password !== undefined;
      // The password itself never shows in the contact's object: its change is an event of its own.
      const events: EventToEmit[] = [{ type: 'customer_contact.updated', ref, before }];
      if (passwordHash) events.push({ type: 'customer_contact.password_changed', ref });
      if (changed && isActive) {
        await queueMail(
          trx,
          ctx,
          ctx.account.id,
          credentialsMail(
            ctx,
            fields.email,
            fields.name,
            { username, password },
            { seller, portalUrl: links.portalUrl },
          ),
        );
        events.push({ type: 'customer_contact.credentials_sent', ref });
      }
      await emitEvents(tctx, events);
      return changed;
    }),
  );
  if (credentialsChanged && isActive) ctx.mailQueued();
}

export async function deleteContact(ctx: ServiceContext, contactId: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const ref = contactRef(contactId);
    const before = await snapshotResource(tctx, ref);
    if (!(await repo.deleteContact(tctx.db, ctx.account.id, contactId))) {
      throw new NotFoundError('Customer contact', contactId);
    }
    await emitEvent(tctx, 'customer_contact.deleted', ref, { before });
  });
}

const contactRef = (id: number) => ({ type: 'customer_contact', id });

/** The account's contacts with these ids, by id (ids it cannot see are left out). */
export async function contactsByIds(
  ctx: ServiceContext,
  contactIds: readonly number[],
): Promise<Map<number, Contact>> {
  const contacts = await repo.findContacts(ctx.db, ctx.account.id, contactIds);
  return new Map(contacts.map((contact) => [contact.id, contact]));
}
