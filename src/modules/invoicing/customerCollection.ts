/**
 * How an invoice that follows its customer is collected: the customer's payment settings (PaymentMethod,
 * PrimaryGatewayID, the primary payment method) read when an attempt is made (docs/gateways.md, "From the
 * customer's settings to the money"). Pure: the caller reads the settings and the gateways they name.
 */

/** The two ways the service takes money by itself; every other PaymentMethod is paid by the customer. */
export type AutomaticMethod = 'credit_card' | 'debit_order';

/**
 * The automatic method a customer's PaymentMethod asks for, or null (cash, cheque, eft, unset). `bank_account`,
 * a spelling the spec's samples show, is a debit order.
 */
export function automaticMethodOf(paymentMethod: string | null): AutomaticMethod | null {
  if (paymentMethod === 'credit_card') return 'credit_card';
  if (paymentMethod === 'debit_order' || paymentMethod === 'bank_account') return 'debit_order';
  return null;
}

/** The PaymentMethod spellings that ask for `method` (for reads that filter customers by it). */
export function paymentMethodsAsking(method: AutomaticMethod): string[] {
  return method === 'credit_card' ? ['credit_card'] : ['debit_order', 'bank_account'];
}

export interface CustomerSettings {
  paymentMethod: string | null;
  primaryGatewayId: number | null;
}

export interface PrimaryMethod {
  id: number;
  kind: 'credit_card' | 'bank_account';
  isValid: boolean;
  /** The gateway whose vault keeps a card; null for a bank account. */
  gatewayId: number | null;
}

export interface GatewayAbilities {
  id: number;
  usable: boolean;
  /** Why it cannot be used, where there are better words than "disabled" (a live account's test gateway). */
  unusableWords?: string;
  /** Charges cards (credit_card) or collects bank debits in batches (debit_order). */
  collects: (method: AutomaticMethod) => boolean;
}

export type CollectionProblemCode =
  | 'no_payment_method'
  | 'payment_method_of_other_kind'
  | 'payment_method_not_valid'
  | 'no_gateway'
  | 'gateway_not_usable'
  | 'gateway_cannot_collect'
  | 'card_at_other_gateway';

/**
 * A collection the invoice names (or a debit its customer's settings resolve to) that cannot be made, as the invoice
 * stores it: the code and the reason (docs/gateways.md, "One customer never holds up a batch", "No due debit
 * without a plan or a problem", "When the settings cannot collect"). The invoice is held, with no next try, until someone acts. `mandate_not_usable`:
 * its bank account's eMandate refuses it; `bank_account_not_usable`: the bank account cannot be debited (gone, not
 * the customer's, of another rail, not valid), found when its batch was built or when the run found none to debit;
 * `gateway_not_usable`: the gateway that is to collect it is gone, disabled, or does not collect that kind;
 * `card_not_usable`: the card the invoice names is gone, not a card, or not valid. Unlike the codes above, which
 * the customer's settings give and the invoice shows as their message, the invoice shows this one's reason as its
 * CollectionProblem until the collection can be made. `customer_pays`: a debit order that missed its own date and
 * that its mandate cannot carry to its next one, handed to the customer to pay (docs/gateways.md, "Months that stay
 * in step"); the run leaves it alone for good.
 */
export type HeldCollectionCode =
  | 'mandate_not_usable'
  | 'bank_account_not_usable'
  | 'gateway_not_usable'
  | 'card_not_usable'
  | 'customer_pays';
export type HeldCollectionProblem = `${HeldCollectionCode}: ${string}`;
/** What can keep a debit order from being made. */
export type DebitProblemCode = Exclude<HeldCollectionCode, 'card_not_usable' | 'customer_pays'>;
/** What can keep a card an invoice names from being charged. */
export type CardProblemCode = Extract<HeldCollectionCode, 'gateway_not_usable' | 'card_not_usable'>;
/** Why a collection the invoice names cannot be made, and its stored code. */
export interface HeldCollection<Code extends HeldCollectionCode> {
  problem: string;
  code: Code;
}

const HELD_COLLECTION_CODES: readonly HeldCollectionCode[] = [
  'mandate_not_usable',
  'bank_account_not_usable',
  'gateway_not_usable',
  'card_not_usable',
  'customer_pays',
];

export const heldCollectionProblem = (
  reason: string,
  code: HeldCollectionCode = 'mandate_not_usable',
): HeldCollectionProblem => `${code}: ${reason}`;

/** Whether a stored problem says the debit was handed to the customer to pay. */
export const handedToCustomer = (stored: string | null): boolean =>
  stored?.startsWith('customer_pays: ') ?? false;

/** The reason a stored problem gives when it is a held collection's, else null. */
export function heldCollectionReason(stored: string | null): string | null {
  const code = HELD_COLLECTION_CODES.find((c) => stored?.startsWith(`${c}: `));
  return code === undefined ? null : stored!.slice(code.length + 2);
}

export type CustomerCollection =
  | { kind: 'manual'; method: string | null }
  | { kind: 'automatic'; method: AutomaticMethod; gatewayId: number; paymentMethodId: number }
  | {
      kind: 'blocked';
      method: AutomaticMethod;
      gatewayId: number | null;
      problem: CollectionProblemCode;
      message: string;
    };

const KIND_OF: Record<AutomaticMethod, PrimaryMethod['kind']> = {
  credit_card: 'credit_card',
  debit_order: 'bank_account',
};
const KIND_WORDS = { credit_card: 'a card', bank_account: 'a bank account' } as const;

/**
 * What the customer's settings do with an invoice that follows them. The gateway is the customer's primary
 * gateway; without one, the gateway whose vault keeps the primary card, or for a bank account the account's
 * primary gateway. The method is the customer's primary payment method, which must be of the kind the
 * PaymentMethod asks for, valid, and (a card) kept at that gateway.
 */
export function customerCollection(
  settings: CustomerSettings,
  primary: PrimaryMethod | undefined,
  gatewayOf: (id: number) => GatewayAbilities | undefined,
  accountPrimaryGatewayId: number | null,
): CustomerCollection {
  const method = automaticMethodOf(settings.paymentMethod);
  if (!method) return { kind: 'manual', method: settings.paymentMethod };
  const kind = KIND_OF[method];
  const gatewayId =
    settings.primaryGatewayId ??
    (kind === 'credit_card' ? primary?.gatewayId : null) ??
    accountPrimaryGatewayId;
  const blocked = (problem: CollectionProblemCode, message: string): CustomerCollection => ({
    kind: 'blocked',
    method,
    gatewayId,
    problem,
    message,
  });
  if (!primary) return blocked('no_payment_method', `the customer has no primary payment method`);
  if (primary.kind !== kind) {
    return blocked(
      'payment_method_of_other_kind',
      `PaymentMethod is ${settings.paymentMethod} but the primary payment method ${primary.id} is ${KIND_WORDS[primary.kind]}`,
    );
  }
  if (!primary.isValid) {
    return blocked('payment_method_not_valid', `the primary payment method ${primary.id} is not valid`);
  }
  if (gatewayId === null)
    return blocked('no_gateway', 'the customer and the account have no primary gateway');
  const gateway = gatewayOf(gatewayId);
  if (!gateway?.usable) {
    return blocked(
      'gateway_not_usable',
      gateway?.unusableWords ?? `gateway ${gatewayId} is disabled or retired`,
    );
  }
  if (!gateway.collects(method)) {
    return blocked(
      'gateway_cannot_collect',
      `gateway ${gatewayId} does not collect ${method === 'credit_card' ? 'card payments' : 'debit orders'}`,
    );
  }
  if (kind === 'credit_card' && primary.gatewayId !== gatewayId) {
    return blocked(
      'card_at_other_gateway',
      `the primary card ${primary.id} is kept at gateway ${primary.gatewayId}, not at gateway ${gatewayId}`,
    );
  }
  return { kind: 'automatic', method, gatewayId, paymentMethodId: primary.id };
}
