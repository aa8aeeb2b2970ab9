import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { TEST_CLOCK_EVENT_TYPES } from '../../src/billing/testClock.ts';
import { ACCOUNT_EVENT_TYPES } from '../../src/modules/auth/index.ts';
import { BATCH_EVENT_TYPES } from '../../src/modules/batches/index.ts';
import { CATALOGUE_EVENT_TYPES } from '../../src/modules/catalogue/index.ts';
import { COLLECTION_EVENT_TYPES } from '../../src/modules/collections/index.ts';
import { CUSTOMER_EVENT_TYPES } from '../../src/modules/customers/index.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/modules/events/index.ts';
import { GATEWAY_EVENT_TYPES } from '../../src/modules/gateways/index.ts';
import { INVOICE_EVENT_TYPES, RECURRING_INVOICE_EVENT_TYPES } from '../../src/modules/invoicing/index.ts';
import {
  ADJUSTMENT_EVENT_TYPES,
  CREDIT_NOTE_EVENT_TYPES,
  TAX_CREDIT_NOTE_EVENT_TYPES,
  PAYMENT_EVENT_TYPES,
} from '../../src/modules/ledger/index.ts';
import { EMANDATE_EVENT_TYPES } from '../../src/modules/mandates/index.ts';
import { PAYMENT_METHOD_EVENT_TYPES } from '../../src/modules/paymentMethods/index.ts';
import { SUBSCRIPTION_EVENT_TYPES } from '../../src/modules/subscriptions/index.ts';
import { ENTITLEMENT_EVENT_TYPES } from '../../src/modules/entitlements/index.ts';
import { USAGE_ALERT_EVENT_TYPES } from '../../src/modules/usageAlerts/index.ts';
import { COUPON_EVENT_TYPES } from '../../src/modules/coupons/index.ts';
import { RETENTION_EVENT_TYPES } from '../../src/modules/retention/index.ts';
import { CREDIT_EVENT_TYPES } from '../../src/modules/credits/index.ts';
import { CAPTURE_SESSION_EVENT_TYPES } from '../../src/modules/widgets/index.ts';
import type { WireEvent } from '../helpers/resourceEvents.ts';

// The event catalogue: every type the modules declare, what triggers it, and how docs/event-catalogue.md shows
// it. The walk (catalogue.walk.test.ts) proves each type is emitted and captures the example payloads.

/** Every event type the service declares, module by module. */
export const DECLARED_EVENT_TYPES: readonly string[] = [
  ...ACCOUNT_EVENT_TYPES,
  ...TEST_CLOCK_EVENT_TYPES,
  ...GATEWAY_EVENT_TYPES,
  ...CATALOGUE_EVENT_TYPES,
  ...CUSTOMER_EVENT_TYPES,
  ...PAYMENT_METHOD_EVENT_TYPES,
  ...SUBSCRIPTION_EVENT_TYPES,
  ...ENTITLEMENT_EVENT_TYPES,
  ...USAGE_ALERT_EVENT_TYPES,
  ...COUPON_EVENT_TYPES,
  ...RETENTION_EVENT_TYPES,
  ...CREDIT_EVENT_TYPES,
  ...INVOICE_EVENT_TYPES,
  ...COLLECTION_EVENT_TYPES,
  ...RECURRING_INVOICE_EVENT_TYPES,
  ...PAYMENT_EVENT_TYPES,
  ...CREDIT_NOTE_EVENT_TYPES,
  ...TAX_CREDIT_NOTE_EVENT_TYPES,
  ...ADJUSTMENT_EVENT_TYPES,
  ...BATCH_EVENT_TYPES,
  ...CAPTURE_SESSION_EVENT_TYPES,
  ...WEBHOOK_EVENT_TYPES,
  ...EMANDATE_EVENT_TYPES,
];

/** What triggers each type, one sentence each; the catalogue's text. */
export const EVENT_DESCRIPTIONS: Record<string, string> = {
  'account.created':
    'An account was created (by `billing account create` or the service), with its first currency, test gateway and API key.',
  'account.updated': 'A setting of the account changed through `PUT /v1/account` or `billing account set`.',
  'api_key.created': 'An API key was created; the object shows its prefix and dates, never the key itself.',
  'api_key.revoked':
    'An API key was revoked with `billing key revoke`; `previous` holds its empty RevokedDate.',
  'test_clock.advanced':
    "A test account's clock was moved forward (`POST /v1/test-clock/advance`), after the bill run of every day it passed; the object is the account.",
  'gateway.created':
    'A payment gateway was added to the account (the test gateway at account creation, or `billing gateway add`).',
  'gateway.updated':
    'A gateway was enabled or disabled, or made or no longer the primary one (`billing gateway enable|disable|primary`, or `add --primary`).',
  'currency.added':
    'A currency was added to the account (`POST /v1/currencies`, or its first at account creation).',
  'currency.removed':
    "A currency was removed from the account (`DELETE /v1/currencies`); the account's own currency, or one customers or prices use, cannot be.",
  'tax_setting.created': 'A tax setting was created with its rules (`POST /v1/tax`).',
  'tax_setting.updated': 'A tax setting or one of its rules changed (`PUT /v1/tax/{id}`).',
  'tax_setting.deleted': 'A tax setting was deleted; the object is the setting as it was.',
  'package_group.created': 'A package group was created (`POST /v1/packagegroups`).',
  'package_group.updated': 'A package group was renamed.',
  'package_group.deleted':
    'A package group that nothing uses was deleted; the object is the group as it was.',
  'package.created': 'A package was created with its first version (`POST /v1/packages`).',
  'package.updated':
    'A field of a package changed, or its list of versions did (a version added, deleted or made default).',
  'package.deleted': 'A package was deleted; the object is the package as it was.',
  'package_version.created': 'A version of a package was created, with the package or on its own.',
  'package_version.updated':
    'A package version changed: its name, rates or terms, or whether it is active or the default.',
  'package_version.deleted': 'A package version was deleted; the object is the version as it was.',
  'component.created': 'A component was created with its first version (`POST /v1/components`).',
  'component.updated':
    'A field of a component changed, or its list of versions did (a version added, deleted or made default).',
  'component.deleted': 'A component was deleted; the object is the component as it was.',
  'component_version.created': 'A version of a component was created, with the component or on its own.',
  'component_version.updated':
    'A component version changed: its name, prices, or whether it is active or the default.',
  'component_version.deleted': 'A component version was deleted; the object is the version as it was.',
  'billable_metric.created': 'A billable metric was created (`POST /v1/billable-metrics`).',
  'billable_metric.updated': "A billable metric's Name or Descrip changed (its reading never does).",
  'billable_metric.archived':
    'A billable metric was archived (`DELETE /v1/billable-metrics/{id}`): it refuses new events and keeps its Code; `previous` holds its empty ArchivedAt.',
  'customer.created': 'A customer was created (`POST /v1/customers`).',
  'customer.updated':
    'A field of a customer changed, its custom field values included; status moves come with their lifecycle event.',
  'customer.deleted':
    'A customer was deleted, after the deletion events of its contacts and notes; the object is the customer as it was.',
  'customer.archived': 'A customer was archived (isActive went from true to false).',
  'customer.reopened': 'An archived customer was reopened (isActive went back to true).',
  'customer.suspended': 'A customer was suspended (isSuspended went to true).',
  'customer.unsuspended': 'A suspended customer was unsuspended.',
  'customer_contact.created': 'A contact was added to a customer (`POST /v1/customercontacts`).',
  'customer_contact.updated': 'A field of a contact changed; a new password alone is `password_changed`.',
  'customer_contact.deleted':
    'A contact was deleted, alone or with its customer; the object is the contact as it was.',
  'customer_contact.credentials_sent':
    'The portal credentials e-mail was queued for an active contact: at its creation, or when its username or password changed.',
  'customer_contact.password_changed':
    "A contact's portal password was set or changed; the object never shows it.",
  'customer_note.created': 'A note was added to a customer (`POST /v1/customernotes`).',
  'customer_note.updated': 'The text or type of a note changed.',
  'customer_note.deleted':
    'A note was deleted, alone or with its customer; the object is the note as it was.',
  'custom_field.created': 'A custom field was defined for the account (`POST /v1/customfields`).',
  'custom_field.deleted': 'A custom field definition was deleted; the object is the definition as it was.',
  'payment_method.created':
    'A card or bank account was stored for a customer; never with a card or account number.',
  'payment_method.updated':
    'A stored payment method changed: its details were edited, or it stopped being the primary one.',
  'payment_method.primary_changed':
    "A payment method became its customer's primary one (`PUT …/setprimary`).",
  'payment_method.deleted': 'A payment method was deleted; the object is the method as it was.',
  'feature.created':
    'A feature was created (`POST /v1/features`): on/off, a limit per billing period on a metric, or a configuration value.',
  'feature.updated': "A feature's code, name, description or metric changed (`PUT /v1/features/{id}`).",
  'feature.deleted':
    'A feature no package or subscription gives was deleted; the object is the feature as it was.',
  'feature_value.set':
    "A package was given a feature's value, or a subscription an override of it, or that value changed (`PUT …/features/{featureCode}`).",
  'feature_value.removed':
    'A package no longer gives a feature, or a subscription dropped its override; the object is the value as it was.',
  'usage_alert.created':
    "A usage alert was set on a subscription (`POST /v1/subscriptions/{id}/usage-alerts`): a threshold on a metric's quantity or on the usage's amount so far.",
  'usage_alert.updated': 'A usage alert was replaced (`PUT /v1/subscriptions/{id}/usage-alerts/{alertId}`).',
  'usage_alert.deleted': 'A usage alert was deleted; the object is the alert as it was.',
  'usage.threshold_crossed':
    "A usage alert's threshold was reached in its subscription's current period (once a period, whoever evaluates); the object is the alert, with `LastFiring` holding the period, the threshold and the value seen.",
  'coupon.created':
    'A coupon was created (`POST /v1/coupons`): a percentage or an amount off, for one, N or every billed period.',
  'coupon.updated':
    "A coupon's name, RedeemBy, MaxRedemptions, AppliesTo, PortalRedeemable or IsRetention changed (`PUT /v1/coupons/{id}`).",
  'coupon.archived':
    'A coupon was archived (`DELETE /v1/coupons/{id}`): it can no longer be redeemed; its redemptions keep discounting.',
  'coupon.redeemed':
    'A coupon was redeemed on a customer or a subscription (`POST …/coupons`); the object is the redemption.',
  'coupon.ended':
    'A redemption was ended (`DELETE …/coupons/{id}`), or the bill run used up its last billed period: it ' +
    'discounts no invoice made from then on.',
  'retention.offer_shown':
    "A customer cancelling in the portal was shown an offer to stay, the first of its reason's offers in the account's " +
    'retention rules (`PUT /v1/account/retention`); the object names the subscription, the reason and the offer.',
  'retention.offer_taken':
    'A customer took the offer instead of cancelling: the coupon was redeemed on the subscription, or the package ' +
    'change set for its next renewal; nothing was cancelled.',
  'retention.offer_declined':
    'A customer chose "Cancel anyway" on an offer; the subscription is cancelled at the end of its period, its ' +
    '`CancelReason` the reason given.',
  'wallet.created':
    "A customer's wallet of prepaid credit in one currency was created (`POST /v1/customers/{id}/wallets`).",
  'wallet.updated':
    'A wallet was renamed or its automatic top-up or low-balance alert changed (`PUT /v1/wallets/{id}`).',
  'wallet.balance_low':
    "A wallet's balance fell below its LowBalanceAlertThreshold: once a crossing, rearmed when it is back at or above it.",
  'wallet.auto_top_up_started':
    "A wallet's balance fell below its AutoTopUpThreshold: a top-up invoice of AutoTopUpAmount was made, charged to the customer's primary card.",
  'wallet.auto_top_up_failed':
    "An automatic top-up could not be made (AutoTopUpProblem says why), or its invoice's card charge was declined.",
  'credit_grant.created':
    "Credit came into a wallet: granted (`POST /v1/wallets/{id}/grants`), or bought, when a paid top-up's invoice was paid in full.",
  'credit_grant.consumed':
    "A grant's credit paid invoices, as they were issued or at a credit-first moment; the invoices' own events follow.",
  'credit_grant.released': 'Credit that paid an invoice went back to its grant, the invoice being cancelled.',
  'credit_grant.expired':
    'What remained of a grant expired (the daily run, or a release to a grant already expired).',
  'credit_grant.voided':
    'A grant was voided (`POST /v1/credit-grants/{id}/void`): what remained of it is written off.',
  'credit_grant.refunded':
    "Credit left a paid grant with the money that bought it: its top-up's invoice was credited (a credit note, or a refund through the gateway crediting it: `POST /v1/credit-grants/{id}/refund`, `POST /v1/payments/{id}/refund`); `Refunded` says how much in all.",
  'credit_grant.refund_undone':
    "Credit a refund took went back to its paid grant: the gateway refused the refund, or the credit note on the top-up's invoice was deleted or lowered.",
  'subscription.created': 'A customer was subscribed to a package (`POST /v1/subscriptions`).',
  'subscription.updated':
    'A field of a subscription changed: an edit, a change of components or of a scheduled change, a bill run that parked it.',
  'subscription.usage_recorded':
    'Usage of a component was recorded on a subscription (`PUT …/components/recordusage`).',
  'subscription.future_change_scheduled':
    'A change of package, or a cancellation at the end of the term, was scheduled for later.',
  'subscription.future_change_applied':
    'A scheduled change of package took effect at the renewal the bill run billed.',
  'subscription.renewed':
    'A term of the subscription was billed, the first one included (lastRenewDate set or moved); no `previous`.',
  'subscription.trial_started':
    'A subscription created before its start date began its trial, on the start date (by the bill run of that day).',
  'subscription.trial_will_end':
    'The trial of a subscription ends in three days (by the bill run of that day).',
  'subscription.activated':
    'A subscription became active: its trial ended or its future start date came (by the bill run of that day), or the first invoice of one created with `ActivateOnPayment` was paid.',
  'subscription.cancelled':
    'A subscription was cancelled, at once or on the CancelDate a scheduled cancellation set; `CancelReason` is the ' +
    "reason the customer gave in the portal (a Code of the account's retention rules), null otherwise.",
  'subscription.expired': 'A subscription reached its end date, set to today or reached by the bill run.',
  'subscription.reactivated': 'A cancelled or expired subscription was reactivated (`PUT …/reactivate`).',
  'subscription.backdated':
    'A subscription was created starting more than one period ago: every period up to today is billed at once (`Warnings` on its 201).',
  'subscription.incomplete':
    'A subscription was created with `ActivateOnPayment`: it is `Incomplete` until its first invoice, issued at once, is paid (then `subscription.activated`).',
  'subscription.incomplete_expired':
    'An incomplete subscription was still unpaid on its `IncompleteExpiryDate`: the bill run cancelled its first invoice and it became `IncompleteExpired`, never billed again.',
  'subscription.paused':
    'A subscription was paused (`PUT …/pause`): on the pause’s first day, by the API or by the bill run of that day. No invoice is made while paused.',
  'subscription.pause_will_end':
    'A paused subscription resumes in three days, on its ResumeDate (by the bill run of that day); the customer is told when the account sends pause notices.',
  'subscription.resumed':
    'A paused subscription resumed (`PUT …/resume`): on the ResumeDate, by the API or by the bill run of that day; with `WaitForPayment`, when a payment makes the resumption invoice Paid, in the payment’s transaction.',
  'subscription.resume_expired':
    'A resume with `WaitForPayment` was still unpaid on its `ResumePayByDate`: the bill run cancelled the resumption invoice and the subscription stays `Paused`, with no ResumeDate, until resumed again.',
  'invoice.created': 'An invoice was created, by the API (draft or issued) or by the bill run.',
  'invoice.updated':
    'A field of an invoice changed, or an allocation moved its figures without paying it (less paid, or a payment removed).',
  'invoice.finalized': 'A draft invoice was issued: it got its number and its status.',
  'invoice.sent': 'An invoice was e-mailed to the customer (`PUT …/send`, or automatically by the bill run).',
  'invoice.partially_paid': 'An allocation paid part of an invoice, which still has a balance.',
  'invoice.paid': 'Allocations paid the whole of an invoice (its Balance reached 0).',
  'invoice.past_due':
    'An invoice still owed passed its due date (on the first day after it, by the bill run).',
  'invoice.cancelled': 'An issued invoice was cancelled (`DELETE /v1/invoices/{id}`).',
  'invoice.payment_failed':
    'The gateway declined a charge of a card invoice, or the bank returned a debit order unpaid (a Failed payment records it); `previous` holds NumTries and NextTryDate before it (docs/gateways.md).',
  'invoice.collection_exhausted':
    'An invoice will not be collected again: the account’s card retries, or the rail’s presentations of a debit order, ran out (the customer is e-mailed; optional actions follow).',
  'invoice.collection_blocked':
    'A due invoice cannot be collected: the payment settings of a customer it follows cannot collect it (no usable payment method, or a gateway that cannot take it; the customer is e-mailed once), or the card, bank account, mandate or gateway it is to be collected with cannot be used (the account’s staff are e-mailed once). `CollectionProblem` says why (docs/gateways.md, “When the settings cannot collect”, “No due debit without a plan or a problem”).',
  'invoice.payment_succeeded':
    'A collected payment (a card charge once taken, a portal or widget payment, a debit order once settled and its return window passed) paid some of an invoice; the customer is sent a receipt when the account sends them (docs/gateways.md, "The collection loop").',
  'invoice.payment_action_required':
    'A charge of an invoice needs the customer to confirm it with their bank (3-D Secure): nothing retries it, and the customer is e-mailed a link to confirm it (docs/gateways.md, "The collection loop").',
  'invoice.payment_reminder':
    'An invoice the customer pays itself reached a day of the account’s InvoiceReminderDays while unpaid; one per invoice and day, e-mailed when the account sends reminders (docs/gateways.md, "The collection loop").',
  'invoice.deleted': 'A draft invoice was deleted; the object is the draft as it was.',
  'recurring_invoice.created': 'A recurring invoice was created (`POST /v1/recurring-invoices`).',
  'recurring_invoice.updated': 'A field of a recurring invoice changed.',
  'recurring_invoice.activated':
    'A recurring invoice reached its future start date (by the bill run of that day).',
  'recurring_invoice.renewed':
    'The bill run made the next invoice of a recurring invoice (lastInvDate moved).',
  'recurring_invoice.cancelled': 'A recurring invoice was cancelled (`PUT …/cancel`).',
  'recurring_invoice.reactivated': 'A cancelled recurring invoice was reactivated (`PUT …/reactivate`).',
  'recurring_invoice.expired': 'A recurring invoice reached its end date (by the bill run of that day).',
  'recurring_invoice.deleted':
    'A recurring invoice was deleted; the object is the recurring invoice as it was.',
  'payment.created': 'A payment was recorded, with the allocations it was given (`POST /v1/payments`).',
  'payment.updated': 'A field of a payment of its own changed (amount, date, method, memo …).',
  'payment.allocated':
    "A payment's allocations changed (added, changed or removed); the invoices they move have their own events.",
  'payment.reversed':
    'A payment collected through a gateway failed after it was made: taken back (a dispute, a refund by the bank, an unpaid debit; `POST /v1/test/simulate` on test gateways), or its batch cancelled (batch_cancelled). It is Failed with its FailureReason, and its invoices owe the money again.',
  'payment.refunded':
    'Money of a card payment was paid back through its gateway (`POST /v1/payments/{id}/refund`): the payment is allocated to the new positive refund adjustment. Money it took from invoices is covered by a credit note (`credit_note.created`) or owed again (`invoice.updated`), as the refund chose.',
  'payment.deleted':
    'A payment was deleted and its allocations released; the object is the payment as it was.',
  'credit_note.created':
    'A credit note was created, with the allocations it was given (`POST /v1/credits`, or a refund crediting the invoices it took money from).',
  'credit_note.updated': 'A field of a credit note of its own changed (amount, date, number …).',
  'credit_note.allocated':
    "A credit note's allocations changed; the invoices they move have their own events.",
  'credit_note.deleted':
    'A credit note was deleted and its allocations released (`DELETE /v1/credits/{id}`, or a refund the gateway refused withdrawing the one it issued); the object is the note as it was.',
  'tax_credit_note.issued':
    'A tax credit note was issued (docs/tax.md, "Tax credit notes"): a credit note, a negative `credit_note` adjustment (a subscription\'s credit for unused time included), or prepaid credit that took VAT off an invoice after its issue; the object is the document with the invoices it corrects.',
  'adjustment.created':
    'A positive or negative adjustment was added to a customer (`POST /v1/adjustment/add`).',
  'adjustment.updated':
    'An adjustment changed: edited, or (a positive one) allocations to it moved its figures.',
  'adjustment.deleted': 'An adjustment was deleted; the object is the adjustment as it was.',
  'batch.created':
    'A payment batch was created (`POST /v1/batches`), or the collection run opened one for due debit orders.',
  'batch.updated':
    'A batch changed: edited (`PUT /v1/batches`), submitted (State build), taken by its gateway (submitted), or its action date came (processing). Its lines are told by their payments’ events.',
  'batch.build_failed':
    'A submitted batch could not be built and is open again, with BuildError naming each bad payment.',
  'batch.processed':
    'Every line of a batch is final: paid (no return within the rail’s window) or returned unpaid. Late returns may still fail a line.',
  'batch.cancelled': 'A batch was cancelled (`PUT /v1/batches/cancel`); its pending payments fail.',
  'batch.submission_due':
    'An open batch the collection run bundled is two business days from its last safe day (the rail’s lead time before its action date) and AutoSubmitBatches is off: submit it by then. Once per batch and action date; the staff are e-mailed too, with the command to run.',
  'capture_session.created':
    'A capture session of the hosted widget was created (`POST /v1/widgets/capturepaymethod/create`); the object never shows its HashToken or Html.',
  'capture_session.captured':
    'The frame (or the provider’s webhook, or the collection run) took a card into the gateway’s vault (and charged a sale): link it with `PUT …/complete` by its `iframeCapturePayID`; `Purpose` says what it was for.',
  'capture_session.failed':
    'A submit in the frame failed (invalid fields or a declined card) and counted as one of its five attempts.',
  'capture_session.locked': 'A fifth failed submit locked the session: its frame takes no more cards.',
  'capture_session.completed':
    'The session was completed for a customer (`PUT …/complete`): the card became a payment method, a sale a payment.',
  'webhook_endpoint.created': 'A webhook endpoint was created (`POST /v1/webhookendpoints`).',
  'webhook_endpoint.updated': 'A webhook endpoint changed: its URL, events, description or status.',
  'webhook_endpoint.deleted': 'A webhook endpoint was deleted; the object is the endpoint as it was.',
  'webhook_endpoint.disabled':
    'A webhook endpoint was disabled, by hand or by the service after a 410 or days of failures (DisabledReason says which).',
  'webhook_endpoint.secret_rotated':
    "A webhook endpoint's signing secret was rotated (`POST …/rotatesecret`); the object never shows a secret.",
  'webhook.test':
    'A test event was asked for (`POST /v1/webhookendpoints/{id}/test`); it is delivered to that endpoint alone.',
  'emandate.created':
    'An eMandate was created (`POST /v1/emandate` or `POST /widget/emandate`) and waits 24 hours for its signature; the account number is masked.',
  'emandate.signed':
    'The signee signed an eMandate on the hosted page (DateSigned set); the evidence of signing is kept with it.',
  'emandate.updated':
    'A signed eMandate was linked to the bank account added with its token (`customerPaymentMethodID`), or unlinked when that method was deleted or given another token.',
  'emandate.declined':
    'The signee declined an eMandate on the hosted page (Status rejected); its token signs nothing any more.',
  'emandate.expired':
    'An eMandate was not signed within 24 hours of its creation; its token no longer signs.',
  'emandate.cancelled':
    'A signed eMandate was cancelled (`PUT /v1/emandate/cancel`, Status cancelled, DateCancelled set); the bank account linked to it becomes invalid and no batch collects under it again.',
};

export const CATALOGUE_PATH = new URL('../../docs/event-catalogue.md', import.meta.url);

/** The order of the catalogue's sections; a resource type not listed comes after these. */
const RESOURCE_ORDER = [
  'account',
  'api_key',
  'gateway',
  'currency',
  'tax_setting',
  'package_group',
  'package',
  'package_version',
  'component',
  'component_version',
  'billable_metric',
  'customer',
  'customer_contact',
  'customer_note',
  'custom_field',
  'emandate',
  'payment_method',
  'subscription',
  'feature',
  'feature_value',
  'usage_alert',
  'coupon',
  'coupon_redemption',
  'retention_event',
  'invoice',
  'recurring_invoice',
  'payment',
  'credit_note',
  'tax_credit_note',
  'adjustment',
  'wallet',
  'credit_grant',
  'batch',
  'capture_session',
  'webhook_endpoint',
];

/** Payloads longer than this many lines are folded in a <details> block. */
const FOLD_LINES = 40;

function exampleBlock(event: WireEvent): string {
  const json = JSON.stringify(event, null, 2);
  const block = ['```json', json, '```'].join('\n');
  if (json.split('\n').length <= FOLD_LINES) return block;
  return ['<details>', '<summary>Example payload</summary>', '', block, '', '</details>'].join('\n');
}

/**
 * The catalogue as Markdown: a section per resource type, a `### type` per event with its text and example;
 * formatted by the project's Prettier, so that regenerating it and formatting the docs agree.
 */
export async function renderEventCatalogue(examples: ReadonlyMap<string, WireEvent>): Promise<string> {
  const byResource = new Map<string, string[]>();
  for (const type of DECLARED_EVENT_TYPES) {
    const resource = examples.get(type)?.resource.type ?? type.split('.')[0]!;
    byResource.set(resource, [...(byResource.get(resource) ?? []), type]);
  }
  const rank = (resource: string) => {
    const i = RESOURCE_ORDER.indexOf(resource);
    return i === -1 ? RESOURCE_ORDER.length : i;
  };
  const resources = [...byResource.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const lines = [
    '# Event catalogue',
    '',
    '<!-- Generated by test/events/catalogue.walk.test.ts (UPDATE_EVENT_CATALOGUE=1, on SQLite); the texts are in',
    '     test/events/eventCatalogue.ts. Do not edit by hand. -->',
    '',
    'Every event type the service emits, by the type of resource it is about (`resource.type`), with what',
    'triggers it and a real payload captured by the test that triggers every type through the API, the CLI and',
    "a test account's clock. The event object, its delivery and its signature are described in",
    '[webhooks.md](webhooks.md). `data.object` is the resource as its single `GET` shows it right after the change',
    '(as it was, for a deletion); `data.previous` holds the old values of the fields that changed.',
    '',
  ];
  for (const resource of resources) {
    lines.push(`## \`${resource}\``, '');
    for (const type of byResource.get(resource)!) {
      const example = examples.get(type);
      lines.push(`### ${type}`, '', EVENT_DESCRIPTIONS[type] ?? '', '');
      if (example) lines.push(exampleBlock(example), '');
    }
  }
  const path = fileURLToPath(CATALOGUE_PATH);
  return format(`${lines.join('\n').trimEnd()}\n`, { ...(await resolveConfig(path)), filepath: path });
}

/** The event types the catalogue has a `### type` heading for, in order. */
export function catalogueHeadings(markdown: string): string[] {
  return [...markdown.matchAll(/^### (.+?)\s*$/gm)].map((match) => match[1]!);
}
