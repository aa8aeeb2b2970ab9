import type { ServiceContext } from '../../context.ts';
import { nowInstant, today } from '../../context.ts';
import { lastFour } from '../mandates/index.ts';
import {
  CARD_NUMBER_MAX_DIGITS,
  CARD_NUMBER_MIN_DIGITS,
  CARD_TYPES,
  cardDigits,
  cardTypeOf,
  cardTypesOf,
  isLuhnValid,
  matchesCardType,
} from '../gateways/index.ts';
import type { CardType } from '../gateways/index.ts';
import { requiredText } from '../../core/text.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { getCustomer } from '../customers/index.ts';
import {
  findPrimaryGateway,
  gatewayAccepts,
  getGateway,
  isGatewayUsable,
  isTestGatewayOfLiveAccount,
  testGatewayOnLiveWords,
  vaultCard,
} from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { insertWithPrimaryRules, readUnopenedPaymentMethod } from './paymentMethod.service.ts';
import { newPaymentMethodToken } from './paymentMethod.ts';
import type { PaymentMethod } from './paymentMethod.ts';

export interface AddCreditCardInput {
  customerId: number;
  isPrimary: boolean;
  cardType: string;
  /** Input only: goes to the gateway's vault and nowhere else. */
  number: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
}

/** A card may be at most this many years from expiring: further is a typing mistake. */
const CARD_YEARS_AHEAD = 20;

interface CheckedCard {
  cardType: CardType;
  digits: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
}

/**
 * Spec, Payment methods: every CreditCard field is required; CardType is one of the listed brands, and the Number
 * must be a card number (Luhn) of that brand. Problems are keyed by wire field paths (CreditCard.Number).
 * NOTE: no message ever quotes the number.
 */
function checkedCard(ctx: ServiceContext, input: AddCreditCardInput, problems: FieldProblem[]): CheckedCard {
  const cardType = cardTypeOf(input.cardType);
  if (!cardType) {
    problems.push({ field: 'CreditCard.CardType', message: `must be one of ${CARD_TYPES.join(', ')}` });
  }
  const digits = cardDigits(input.number);
  if (digits === undefined) {
    problems.push({
      field: 'CreditCard.Number',
      message: 'must be digits (spaces and dashes between groups are allowed)',
    });
  } else if (
    digits.length < CARD_NUMBER_MIN_DIGITS ||
    digits.length > CARD_NUMBER_MAX_DIGITS ||
    !isLuhnValid(digits)
  ) {
    problems.push({ field: 'CreditCard.Number', message: 'is not a valid card number' });
  } else if (cardType && !matchesCardType(digits, cardType)) {
    const looksLike = cardTypesOf(digits)[0];
    problems.push({
      field: 'CreditCard.Number',
      message: `is not a ${cardType} card number${looksLike ? ` (it looks like ${looksLike})` : ''}`,
    });
  }
  const nameOnCard = requiredText(input.nameOnCard, 'CreditCard.NameOnCard', problems);
  const lastNameOnCard = requiredText(input.lastNameOnCard, 'CreditCard.LastNameOnCard', problems);

  const { expiryMonth, expiryYear } = input;
  const monthOk = expiryMonth >= 1 && expiryMonth <= 12;
  if (!monthOk) problems.push({ field: 'CreditCard.ExpiryMonth', message: 'must be 1 to 12' });
  const [thisYear, thisMonth] = today(ctx).split('-').map(Number) as [number, number];
  if (expiryYear < 1000 || expiryYear > 9999) {
    problems.push({ field: 'CreditCard.ExpiryYear', message: 'must be a four-digit year' });
  } else if (expiryYear > thisYear + CARD_YEARS_AHEAD) {
    problems.push({
      field: 'CreditCard.ExpiryYear',
      message: `must be at most ${CARD_YEARS_AHEAD} years ahead`,
    });
  } else if (expiryYear < thisYear || (monthOk && expiryYear === thisYear && expiryMonth < thisMonth)) {
    // A card is good to the end of its expiry month, in the account's time zone.
    problems.push({
      field: expiryYear < thisYear ? 'CreditCard.ExpiryYear' : 'CreditCard.ExpiryMonth',
      message: 'the card has expired',
    });
  }
  return {
    cardType: cardType ?? 'Unknown',
    digits: digits ?? '',
    nameOnCard,
    lastNameOnCard,
    expiryMonth,
    expiryYear,
  };
}

/**
 * The gateway whose vault keeps the customer's card: the customer's PrimaryGatewayID when set, else the account's
 * primary gateway. It must be usable and take cards.
 */
async function cardGateway(ctx: ServiceContext, primaryGatewayId: number | null): Promise<Gateway> {
  const gateway =
    primaryGatewayId !== null ? await getGateway(ctx, primaryGatewayId) : await findPrimaryGateway(ctx);
  if (!gateway) {
    throw ValidationError.field(
      'CreditCard',
      'cannot be kept: the customer has no PrimaryGatewayID and the account has no usable primary gateway ' +
        '(a live account collects through a live gateway: billing gateway add; docs/going-live.md)',
      'no_card_gateway',
    );
  }
  if (!isGatewayUsable(gateway)) {
    throw ValidationError.field(
      'CreditCard',
      isTestGatewayOfLiveAccount(ctx.account, gateway)
        ? `cannot be kept: ${testGatewayOnLiveWords(gateway.id)}`
        : `cannot be kept: the customer's gateway ${gateway.id} is disabled or retired`,
      'gateway_not_usable',
    );
  }
  if (!gatewayAccepts(gateway, 'credit_card')) {
    throw ValidationError.field(
      'CreditCard',
      `cannot be kept: gateway ${gateway.id} does not take credit cards`,
      'gateway_refuses_cards',
    );
  }
  return gateway;
}

/**
 * POST /v1/paymentmethods/creditcard. The number goes to the gateway's vault, which hands back a token; we keep
 * the token sealed (and show a token of our own), the brand, the last four digits, the names and the expiry (never the number). Spec: a card is
 * isValid true on add.
 */
export async function addCreditCard(ctx: ServiceContext, input: AddCreditCardInput): Promise<PaymentMethod> {
  const problems: FieldProblem[] = [];
  const card = checkedCard(ctx, input, problems);
  if (problems.length) throw new ValidationError(problems);
  const customer = await getCustomer(ctx, input.customerId);
  const gateway = await cardGateway(ctx, customer.primaryGatewayId);
  const { sealedToken } = await vaultCard(
    ctx,
    gateway,
    {
      number: card.digits,
      cardType: card.cardType,
      nameOnCard: card.nameOnCard,
      lastNameOnCard: card.lastNameOnCard,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
    },
    'CreditCard',
  );
  const now = nowInstant(ctx);
  const id = await insertWithPrimaryRules(
    ctx,
    {
      accountId: ctx.account.id,
      customerId: customer.id,
      gatewayId: gateway.id,
      token: newPaymentMethodToken(),
      vaultTokenSealed: sealedToken,
      isValid: true,
      details: {
        type: 'credit_card',
        card: {
          lastFour: lastFour(card.digits),
          cardType: card.cardType,
          nameOnCard: card.nameOnCard,
          lastNameOnCard: card.lastNameOnCard,
          expiryMonth: card.expiryMonth,
          expiryYear: card.expiryYear,
        },
      },
      createdAt: now,
      updatedAt: now,
    },
    input.isPrimary,
  );
  return readUnopenedPaymentMethod(ctx, id);
}

/** A card already in a gateway's vault (captured by the hosted widget), as the customer's payment method. */
export interface VaultedCardInput {
  customerId: number;
  gatewayId: number;
  /** The token of our own the capture session showed as paymentMethodToken (newPaymentMethodToken). */
  token: string;
  vaultTokenSealed: string;
  cardType: string;
  lastFour: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
}

/**
 * Keeps a card the gateway vaulted before the customer was known (docs/design/hosted-pages.md, "Capture
 * widget"): the customer's primary rules apply as for an added card, and it is not made primary over another.
 * In the caller's transaction when it has one.
 */
export async function addVaultedCard(ctx: ServiceContext, input: VaultedCardInput): Promise<number> {
  const now = nowInstant(ctx);
  return insertWithPrimaryRules(
    ctx,
    {
      accountId: ctx.account.id,
      customerId: input.customerId,
      gatewayId: input.gatewayId,
      token: input.token,
      vaultTokenSealed: input.vaultTokenSealed,
      isValid: true,
      details: {
        type: 'credit_card',
        card: {
          lastFour: input.lastFour,
          cardType: input.cardType,
          nameOnCard: input.nameOnCard,
          lastNameOnCard: input.lastNameOnCard,
          expiryMonth: input.expiryMonth,
          expiryYear: input.expiryYear,
        },
      },
      createdAt: now,
      updatedAt: now,
    },
    false,
  );
}
