import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';

/** A card of the customer at its gateway (the test gateway's vault): its paymentMethodID. */
export async function addCard(
  account: TestAccount,
  customerID: number,
  number: string,
  options: { isPrimary?: boolean; cardType?: string; lastName?: string } = {},
): Promise<number> {
  const method = await ok(
    account,
    'POST',
    '/v1/paymentmethods/creditcard',
    {
      customerID,
      isPrimary: options.isPrimary ?? true,
      CreditCard: {
        CardType: options.cardType ?? (number.startsWith('5') ? 'Mastercard' : 'Visa'),
        Number: number,
        NameOnCard: 'Ada',
        LastNameOnCard: options.lastName ?? 'Lovelace',
        ExpiryMonth: 12,
        ExpiryYear: 2040,
      },
    },
    200,
  );
  return method.paymentMethodID as number;
}
