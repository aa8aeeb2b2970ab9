import { ibanProblem, isValidBic, mod97, normalizeIban } from '../../mandates/index.ts';
import type { PlainDate } from '../../../core/calendar.ts';
import { minorToDecimalText } from '../../../core/money.ts';
import { SEPA_CHARACTERS, SEPA_MAX_ID, sepaIdProblem } from '../../mandates/index.ts';
import { FieldProblems, addMinor, fitText, instantOf, isPlainDate } from './fields.ts';

/**
 * ISO 20022 pain.008.001.02, the customer-to-bank SEPA Core direct debit initiation, for one batch of
 * collections. The rules are the XSD's plus the EPC SDD Core implementation guidelines' usage rules (stricter:
 * 70-character names, the Latin character set, one unstructured remittance line); docs/bank-files.md lists them.
 */

/**
 * FRST the first collection under a recurrent mandate, RCUR the following ones, FNAL the last, OOFF a one-off
 * mandate. It is per line, because it follows each mandate's history; the builder groups lines by it.
 */
export const SEQUENCE_TYPES = ['FRST', 'RCUR', 'FNAL', 'OOFF'] as const;
export type SequenceType = (typeof SEQUENCE_TYPES)[number];

export interface SepaDirectDebitLine {
  /** Our payment id; the bank reports it back as OrgnlEndToEndId. */
  endToEndId: string;
  amountMinor: number;
  /** EUR: SEPA Core collects in euro only. */
  currency: string;
  sequenceType: SequenceType;
  /** Defaults to the batch's date; lines with different dates go to different PmtInf blocks. */
  requestedCollectionDate?: PlainDate;
  /** The unique mandate reference (UMR). */
  mandateId: string;
  mandateSignatureDate: PlainDate;
  debtorName: string;
  debtorIban: string;
  /** Optional since IBAN-only collections (2016); absent, the agent is written as Othr/Id NOTPROVIDED. */
  debtorBic?: string;
  remittanceText?: string;
}

export interface SepaCreditor {
  name: string;
  iban: string;
  bic?: string;
  /** The SEPA creditor identifier (CI), such as DE98ZZZ09999999999. */
  schemeId: string;
}

export interface SepaDirectDebitBatch {
  messageId: string;
  /** The instant the file is made, ISO 8601 with `Z` or an offset, from the caller's clock. */
  createdAt: string;
  initiatingPartyName: string;
  creditor: SepaCreditor;
  requestedCollectionDate: PlainDate;
  lines: readonly SepaDirectDebitLine[];
}

const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.008.001.02';

/** EPC SDD Core IG: names "limited to 70 characters"; one Ustrd of Max140Text (identifiers: sepaIdentifiers.ts). */
const MAX_NAME = 70;
const MAX_REMITTANCE = 140;
/** EPC: an instructed amount is 0.01 to 999999999.99 EUR. */
const MAX_AMOUNT_MINOR = 99_999_999_999;

/** Characters outside the set that have a close equivalent inside it. */
const SEPA_EQUIVALENTS: Readonly<Record<string, string>> = {
  '&': '+',
  '"': "'",
  '`': "'",
  '´': "'",
  '‘': "'",
  '’': "'",
  '‚': "'",
  '“': "'",
  '”': "'",
  '„': "'",
  '«': "'",
  '»': "'",
  '–': '-',
  '—': '-',
  _: '-',
  '<': '(',
  '>': ')',
  '[': '(',
  ']': ')',
  '{': '(',
  '}': ')',
  ';': ',',
  '\\': '/',
};

/**
 * Free text (names, remittance) in the SEPA character set: accented Latin letters as their base letters (ä → a,
 * ß → ss), the equivalents above (& → +, < → (), then any other character as a space, runs of spaces as one.
 */
export function toSepaText(text: string): string {
  // Text already in the set (most names, every invoice number) is ASCII, which neither the transliteration nor the
  // equivalents change: only its spaces are tidied.
  if (SEPA_CHARACTERS.test(text)) return text.replace(/ {2,}/g, ' ').trim();
  return fitText(text, SEPA_CHARACTERS, SEPA_EQUIVALENTS);
}

/**
 * The remittance line of a collection that pays these invoices: `Invoice 1001` or `Invoices 1001, 1002`, the
 * numbers in the SEPA character set; as many as fit in one Ustrd (140 characters), the rest counted
 * (`Invoices 1001, ... +3 more`). Undefined without invoices.
 */
export function invoicesRemittance(invoiceNumbers: readonly string[]): string | undefined {
  const numbers = invoiceNumbers.map(toSepaText).filter((number) => number !== '');
  if (numbers.length === 0) return undefined;
  const head = numbers.length === 1 ? 'Invoice' : 'Invoices';
  for (let shown = numbers.length; shown > 0; shown--) {
    const rest = numbers.length - shown;
    const text = `${head} ${numbers.slice(0, shown).join(', ')}${rest > 0 ? ` +${rest} more` : ''}`;
    if (text.length <= MAX_REMITTANCE) return text;
  }
  // Only a number longer than the whole line gets here.
  return `${numbers.length} invoices`;
}

/**
 * A creditor identifier: country, two check digits, a 3-character business code and the national identifier.
 * The check digits are MOD 97-10 over the national identifier, country and check digits, skipping the business
 * code (EPC262-08).
 */
export function creditorIdProblem(id: string): string | undefined {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/.test(id)) {
    return 'must be a SEPA creditor identifier: country, check digits, business code, national identifier';
  }
  return mod97(id.slice(7) + id.slice(0, 4)) === 1 ? undefined : 'has wrong check digits';
}

/** The XSD's BICIdentifier pattern, stricter than ISO 9362's shape in the location code. */
const XSD_BIC = /^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/;

function bicProblem(bic: string): string | undefined {
  return isValidBic(bic) && XSD_BIC.test(bic) ? undefined : 'must be a BIC of 8 or 11 characters';
}

interface CheckedLine {
  line: SepaDirectDebitLine;
  collectionDate: PlainDate;
  debtorName: string;
  debtorIban: string;
  remittance: string | undefined;
}

interface Checked {
  initiatingPartyName: string;
  creditorName: string;
  creditorIban: string;
  createdAt: string;
  lines: CheckedLine[];
}

function checkText(text: string, field: string, max: number, problems: FieldProblems): string {
  const converted = toSepaText(text);
  if (converted === '') {
    problems.add(field, 'must have a letter or digit of the SEPA character set');
  } else if (converted.length > max) {
    problems.add(
      field,
      `must be at most ${max} characters in the SEPA character set, not ${converted.length}`,
    );
  }
  return converted;
}

function checkId(id: string, field: string, problems: FieldProblems, max = SEPA_MAX_ID): void {
  const problem = sepaIdProblem(id, max);
  if (problem) problems.add(field, problem);
}

function checkIban(text: string, field: string, problems: FieldProblems): string {
  const iban = normalizeIban(text);
  const problem = ibanProblem(iban);
  if (problem) problems.add(field, problem);
  return iban;
}

function checkBatch(batch: SepaDirectDebitBatch): Checked {
  const problems = new FieldProblems();
  checkId(batch.messageId, 'messageId', problems);
  const created = instantOf(batch.createdAt);
  if (!created) problems.add('createdAt', 'must be an ISO 8601 instant with Z or an offset');
  const initiatingPartyName = checkText(batch.initiatingPartyName, 'initiatingPartyName', MAX_NAME, problems);
  const creditorName = checkText(batch.creditor.name, 'creditor.name', MAX_NAME, problems);
  const creditorIban = checkIban(batch.creditor.iban, 'creditor.iban', problems);
  if (batch.creditor.bic !== undefined) {
    const problem = bicProblem(batch.creditor.bic);
    if (problem) problems.add('creditor.bic', problem);
  }
  const schemeProblem = creditorIdProblem(batch.creditor.schemeId);
  if (schemeProblem) problems.add('creditor.schemeId', schemeProblem);
  if (!isPlainDate(batch.requestedCollectionDate)) {
    problems.add('requestedCollectionDate', 'must be a date YYYY-MM-DD');
  }
  if (batch.lines.length === 0) problems.add('lines', 'must have at least one line');

  const firstLineOf = new Map<string, number>();
  const lines = batch.lines.map((line, i): CheckedLine => {
    const at = (field: string) => `lines[${i}].${field}`;
    checkId(line.endToEndId, at('endToEndId'), problems);
    const first = firstLineOf.get(line.endToEndId);
    if (first !== undefined) problems.add(at('endToEndId'), `repeats lines[${first}].endToEndId`);
    else firstLineOf.set(line.endToEndId, i);
    if (
      !Number.isSafeInteger(line.amountMinor) ||
      line.amountMinor < 1 ||
      line.amountMinor > MAX_AMOUNT_MINOR
    ) {
      problems.add(at('amountMinor'), `must be a whole number of cents from 1 to ${MAX_AMOUNT_MINOR}`);
    }
    if (line.currency !== 'EUR') problems.add(at('currency'), 'must be EUR');
    if (!SEQUENCE_TYPES.includes(line.sequenceType)) {
      problems.add(at('sequenceType'), `must be one of ${SEQUENCE_TYPES.join(', ')}`);
    }
    const collectionDate = line.requestedCollectionDate ?? batch.requestedCollectionDate;
    if (line.requestedCollectionDate !== undefined && !isPlainDate(line.requestedCollectionDate)) {
      problems.add(at('requestedCollectionDate'), 'must be a date YYYY-MM-DD');
    }
    checkId(line.mandateId, at('mandateId'), problems);
    if (!isPlainDate(line.mandateSignatureDate)) {
      problems.add(at('mandateSignatureDate'), 'must be a date YYYY-MM-DD');
    } else if (isPlainDate(collectionDate) && line.mandateSignatureDate > collectionDate) {
      problems.add(at('mandateSignatureDate'), `must not be after the collection date ${collectionDate}`);
    }
    const debtorName = checkText(line.debtorName, at('debtorName'), MAX_NAME, problems);
    const debtorIban = checkIban(line.debtorIban, at('debtorIban'), problems);
    if (line.debtorBic !== undefined) {
      const problem = bicProblem(line.debtorBic);
      if (problem) problems.add(at('debtorBic'), problem);
    }
    const remittance =
      line.remittanceText === undefined || line.remittanceText.trim() === ''
        ? undefined
        : checkText(line.remittanceText, at('remittanceText'), MAX_REMITTANCE, problems);
    return { line, collectionDate, debtorName, debtorIban, remittance };
  });
  problems.throwIfAny();
  return {
    initiatingPartyName,
    creditorName,
    creditorIban,
    // Whole seconds in UTC: a fraction of a second tells a bank nothing.
    createdAt: created!.toString({ smallestUnit: 'second' }),
    lines,
  };
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
const XML_SPECIAL = /[&<>"']/;

function escapeXml(text: string): string {
  return XML_SPECIAL.test(text) ? text.replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!) : text;
}

/**
 * The document as indented lines, each written once where it falls. NOTE: not as nested arrays of lines, each
 * element re-indenting its children's: a 500-line file made that way copied every line once per level above it,
 * and its garbage took more time than the rest of the file's making (docs/benchmarks.md, "Batches").
 */
class XmlLines {
  private text = '';
  private indent = '';

  /** An element with text content (escaped here, the one place). */
  leaf(name: string, content: string, attributes = ''): void {
    this.text += `${this.indent}<${name}${attributes}>${escapeXml(content)}</${name}>\n`;
  }

  /** An element whose children `fill` writes. */
  parent(name: string, fill: () => void, attributes = ''): void {
    this.text += `${this.indent}<${name}${attributes}>\n`;
    const outer = this.indent;
    this.indent += '  ';
    fill();
    this.indent = outer;
    this.text += `${this.indent}</${name}>\n`;
  }

  /** An element holding one element with text content, and so on down: `chain(['Dbtr', 'Nm'], name)`. */
  chain(names: readonly string[], content: string): void {
    const [name, ...rest] = names;
    if (rest.length === 0) this.leaf(name!, content);
    else this.parent(name!, () => this.chain(rest, content));
  }

  toString(): string {
    return this.text;
  }
}

const attribute = (name: string, value: string) => ` ${name}="${escapeXml(value)}"`;

/** A financial institution by BIC, or NOTPROVIDED for IBAN-only collections (EPC IG). */
function agent(xml: XmlLines, name: string, bic: string | undefined): void {
  if (bic) xml.chain([name, 'FinInstnId', 'BIC'], bic);
  else xml.chain([name, 'FinInstnId', 'Othr', 'Id'], 'NOTPROVIDED');
}

function account(xml: XmlLines, name: string, iban: string): void {
  xml.chain([name, 'Id', 'IBAN'], iban);
}

function sumOf(lines: readonly CheckedLine[]): number {
  return lines.reduce((sum, { line }) => addMinor(sum, line.amountMinor), 0);
}

function transaction(xml: XmlLines, { line, debtorName, debtorIban, remittance }: CheckedLine): void {
  xml.parent('DrctDbtTxInf', () => {
    xml.chain(['PmtId', 'EndToEndId'], line.endToEndId);
    xml.leaf('InstdAmt', minorToDecimalText(line.amountMinor, 'EUR'), attribute('Ccy', 'EUR'));
    xml.parent('DrctDbtTx', () =>
      xml.parent('MndtRltdInf', () => {
        xml.leaf('MndtId', line.mandateId);
        xml.leaf('DtOfSgntr', line.mandateSignatureDate);
      }),
    );
    agent(xml, 'DbtrAgt', line.debtorBic);
    xml.chain(['Dbtr', 'Nm'], debtorName);
    account(xml, 'DbtrAcct', debtorIban);
    if (remittance !== undefined) xml.chain(['RmtInf', 'Ustrd'], remittance);
  });
}

/**
 * The PmtInf blocks: the scheme carries one sequence type and one collection date per block, so lines are grouped
 * by both, blocks ordered by date then FRST, RCUR, FNAL, OOFF, lines within a block in input order.
 */
function paymentBlocks(lines: readonly CheckedLine[]): CheckedLine[][] {
  const blocks = new Map<string, CheckedLine[]>();
  for (const checked of lines) {
    const key = `${checked.collectionDate}|${SEQUENCE_TYPES.indexOf(checked.line.sequenceType)}`;
    const block = blocks.get(key);
    if (block) block.push(checked);
    else blocks.set(key, [checked]);
  }
  return [...blocks.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, block]) => block);
}

/** PmtInfId: the message id and the block's number, the message id shortened if need be to stay within 35. */
function paymentInfoId(messageId: string, blockNumber: number): string {
  const suffix = `-${blockNumber}`;
  return messageId.slice(0, SEPA_MAX_ID - suffix.length) + suffix;
}

/**
 * The pain.008.001.02 document for one batch, UTF-8 XML. Refuses input that breaks a rule with a ValidationError
 * (code bank_file_input_invalid) naming every bad field by its input path (`lines[2].debtorIban`); nothing is
 * truncated. Free text is converted to the SEPA character set (toSepaText); identifiers must already be in it.
 */
export function buildPain008(batch: SepaDirectDebitBatch): string {
  const checked = checkBatch(batch);
  const { creditor } = batch;
  const xml = new XmlLines();
  const paymentBlock = (lines: readonly CheckedLine[], i: number) =>
    xml.parent('PmtInf', () => {
      xml.leaf('PmtInfId', paymentInfoId(batch.messageId, i + 1));
      xml.leaf('PmtMtd', 'DD');
      xml.leaf('NbOfTxs', String(lines.length));
      xml.leaf('CtrlSum', minorToDecimalText(sumOf(lines), 'EUR'));
      xml.parent('PmtTpInf', () => {
        xml.chain(['SvcLvl', 'Cd'], 'SEPA');
        xml.chain(['LclInstrm', 'Cd'], 'CORE');
        xml.leaf('SeqTp', lines[0]!.line.sequenceType);
      });
      xml.leaf('ReqdColltnDt', lines[0]!.collectionDate);
      xml.chain(['Cdtr', 'Nm'], checked.creditorName);
      account(xml, 'CdtrAcct', checked.creditorIban);
      agent(xml, 'CdtrAgt', creditor.bic);
      // EPC: charges are shared per the scheme's rules (SLEV) in SEPA.
      xml.leaf('ChrgBr', 'SLEV');
      xml.parent('CdtrSchmeId', () =>
        xml.parent('Id', () =>
          xml.parent('PrvtId', () =>
            xml.parent('Othr', () => {
              xml.leaf('Id', creditor.schemeId);
              xml.chain(['SchmeNm', 'Prtry'], 'SEPA');
            }),
          ),
        ),
      );
      for (const line of lines) transaction(xml, line);
    });
  xml.parent(
    'Document',
    () =>
      xml.parent('CstmrDrctDbtInitn', () => {
        xml.parent('GrpHdr', () => {
          xml.leaf('MsgId', batch.messageId);
          xml.leaf('CreDtTm', checked.createdAt);
          xml.leaf('NbOfTxs', String(checked.lines.length));
          xml.leaf('CtrlSum', minorToDecimalText(sumOf(checked.lines), 'EUR'));
          xml.chain(['InitgPty', 'Nm'], checked.initiatingPartyName);
        });
        paymentBlocks(checked.lines).forEach(paymentBlock);
      }),
    attribute('xmlns', NAMESPACE),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml.toString()}`;
}
