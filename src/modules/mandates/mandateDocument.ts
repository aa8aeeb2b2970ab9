import crypto from 'node:crypto';
import { maskedAccountNumber } from './mandates.ts';
import { minorToDecimalText } from '../../core/money.ts';
import type { Emandate } from './emandate.ts';

/**
 * What a signee reads and signs, the same on the signing page, in the signed PDF and in the hash of the evidence
 * (docs/design/mandates.md, "The signed mandate document"): sections of labelled values, then the consent text.
 */
export interface DocumentSection {
  title: string;
  rows: [label: string, value: string][];
}

/** Which consent text a mandate was signed with: a new wording gets a new version. */
export const CONSENT_VERSION = 'emandate-consent-v1';

/** The exact words the signee agrees to by ticking the box, stored with the evidence. */
export function consentText(mandate: Emandate): string {
  const { beneficiary, debit, bankAccount, signee } = mandate;
  return (
    `I, ${signee.name} ${signee.lastName}, authorise ${beneficiary.name} to debit the ${bankAccount.bankName} ` +
    `account ending ${bankAccount.lastFour} held by ${bankAccount.accountHolder} under contract ` +
    `${debit.contractRef}, on the terms above, with "${debit.nameOnStatement}" on my statement. I may dispute a ` +
    `debit that does not keep to these terms with my bank within 40 days, and may cancel this mandate by notice ` +
    `to ${beneficiary.name}, without cancelling what I owe. (${CONSENT_VERSION})`
  );
}

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');
const orDash = (value: string | null) => value ?? '—';

function actionDayText(mandate: Emandate): string {
  const { frequency, actionDay } = mandate.debit;
  if (frequency === 'Weekly' || frequency === 'Fortnightly') {
    const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
    return `${actionDay} (${days[actionDay - 1] ?? '?'})`;
  }
  return actionDay === 99 ? '99 (the last day of the month)' : String(actionDay);
}

/** The mandate as sections; the account number is always masked but for its last four digits. */
export function documentSections(mandate: Emandate): DocumentSection[] {
  const { beneficiary, signee, bankAccount, debit } = mandate;
  const money = (minor: number) => `${minorToDecimalText(minor, debit.currencyCode)} ${debit.currencyCode}`;
  return [
    {
      title: 'Beneficiary',
      rows: [
        ['Name', beneficiary.name],
        ['Contact number', orDash(beneficiary.contactNumber)],
        ['E-mail', orDash(beneficiary.email)],
        ['Web page', orDash(beneficiary.webPage)],
      ],
    },
    {
      title: 'Mandate',
      // Not the token: it is a bearer capability, and a copy of the PDF travels (docs/spec-decisions.md,
      // "eMandate tokens at rest"). The contract reference names the mandate.
      rows: [
        ['Contract reference', debit.contractRef],
        ['Type', mandate.isCompanySignee ? 'Debit order (company)' : 'Debit order'],
      ],
    },
    {
      title: 'Signee',
      rows: [
        ['Name', `${signee.name} ${signee.lastName}`],
        ...(mandate.isCompanySignee
          ? ([
              ['Company', orDash(signee.company)],
              ['Trading as', orDash(signee.tradingAs)],
            ] as [string, string][])
          : []),
        ['Telephone', orDash(signee.tel)],
        ['E-mail', orDash(signee.email)],
        [
          'Address',
          [
            signee.address1,
            signee.address2,
            signee.city,
            signee.state,
            signee.postalCode,
            signee.countryIsoCode,
          ]
            .filter((part) => part)
            .join(', ') || '—',
        ],
      ],
    },
    {
      title: 'Bank account',
      rows: [
        ['Bank', bankAccount.bankName],
        ['Branch code', bankAccount.branchCode],
        ['Account holder', bankAccount.accountHolder],
        ['Account number', maskedAccountNumber(bankAccount.lastFour)],
        ['Account type', bankAccount.accountType],
      ],
    },
    {
      title: 'Debit terms',
      rows: [
        ['Frequency', debit.frequency],
        ['Action day', actionDayText(mandate)],
        ['First collection', debit.startDate],
        ['Last collection', orDash(debit.endDate)],
        ['Instalment', money(debit.amountMinor)],
        ['Maximum', money(debit.maxAmountMinor)],
        ['Escalation', debit.escalation === null ? 'None' : `${debit.escalation}% a year`],
        ['Variable amounts', yesNo(debit.variableAmounts)],
        ['Name on statement', debit.nameOnStatement],
      ],
    },
  ];
}

/** The document as one canonical text: what the SHA-256 of the evidence is taken of. */
export function documentText(mandate: Emandate, consent: string): string {
  const sections = documentSections(mandate).map(
    (section) => `${section.title}\n${section.rows.map(([label, value]) => `${label}: ${value}`).join('\n')}`,
  );
  return `${sections.join('\n\n')}\n\nConsent\n${consent}\n`;
}

export function sha256Hex(text: string): string {
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}
