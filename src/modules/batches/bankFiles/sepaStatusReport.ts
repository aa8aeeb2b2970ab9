import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ValidationError } from '../../../errors.ts';
import { wireAmountToMinor } from '../../../core/money.ts';
import { unreadableFile } from './fields.ts';
import { sepaReason, type ReasonMapping } from '../../collections/index.ts';

export { sepaReason } from '../../collections/index.ts';

/**
 * ISO 20022 pain.002.001.03, the Customer Payment Status Report a bank sends back for a pain.008: the status of
 * the whole message, of each payment information block, and of each transaction, with ISO reason codes.
 */

const NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.002.001.03';

/** TransactionGroupStatus3Code: the message's and a block's status. */
export const GROUP_STATUSES = [
  'ACCP',
  'ACSC',
  'ACSP',
  'ACTC',
  'ACWC',
  'PART',
  'PDNG',
  'RCVD',
  'RJCT',
] as const;
export type GroupStatus = (typeof GROUP_STATUSES)[number];
/** TransactionIndividualStatus3Code: a transaction's status. */
export const TRANSACTION_STATUSES = ['ACCP', 'ACSC', 'ACSP', 'ACTC', 'ACWC', 'PDNG', 'RJCT'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export interface StatusReason {
  /** Rsn/Cd (an ISO external code such as AM04), else Rsn/Prtry; undefined when the bank gave none. */
  code: string | undefined;
  additionalInfo: string[];
}

export interface PaymentInfoStatus {
  originalPaymentInfoId: string;
  status: GroupStatus | undefined;
  reasons: StatusReason[];
}

export interface TransactionStatusReport {
  originalPaymentInfoId: string;
  /** Our payment id, as the pain.008 carried it. */
  originalEndToEndId: string;
  originalInstructionId: string | undefined;
  /**
   * The transaction's own status or, when it has none, its block's or the message's (a status given at a higher
   * level holds for everything under it).
   */
  status: TransactionStatus;
  /** The first reason code, the transaction's own or else inherited like the status. */
  reasonCode: string | undefined;
  /** The reason in the return taxonomy (docs/bank-files.md, "Return reasons") of a rejected transaction's code. */
  reason: ReasonMapping | undefined;
  additionalInfo: string[];
  /** From OrgnlTxRef/Amt/InstdAmt when the bank echoes the amount. */
  amountMinor: number | undefined;
  currency: string | undefined;
}

export interface StatusReport {
  messageId: string;
  createdAt: string;
  originalMessageId: string;
  /** The message the report answers, e.g. pain.008.001.02. */
  originalMessageNameId: string;
  groupStatus: GroupStatus | undefined;
  groupReasons: StatusReason[];
  paymentInfos: PaymentInfoStatus[];
  transactions: TransactionStatusReport[];
}

/** Elements that may repeat in pain.002.001.03, so that one occurrence still reads as a list. */
const REPEATING = new Set(['OrgnlPmtInfAndSts', 'TxInfAndSts', 'StsRsnInf', 'AddtlInf', 'NbOfTxsPerSts']);

/**
 * How deep elements may nest. A pain.002.001.03 goes at most about a dozen levels down (Document, CstmrPmtStsRpt,
 * OrgnlPmtInfAndSts, TxInfAndSts, OrgnlTxRef, Dbtr, PstlAdr, ...); anything deeper is not one, and reading it
 * would only cost memory and time.
 */
export const MAX_NESTING = 32;

/** Names a parsed tree cannot hold as plain keys without reaching the object prototype. */
const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

type Node = Record<string, unknown>;

/** The part of an element name after its namespace prefix: Document for ns2:Document. */
const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/**
 * One reading of the whole text into a tree, prefixes kept: the root's prefix says which xmlns attribute holds its
 * namespace, and the Reader matches elements by their local name. Element names that would reach the object
 * prototype and nesting deeper than MAX_NESTING are refused as the report being unreadable, before the parser
 * would throw a plain Error of its own.
 */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  jPath: false,
  maxNestedTags: MAX_NESTING + 1,
  isArray: (name) => REPEATING.has(localName(name)),
  transformTagName: (name) => {
    if (PROTOTYPE_NAMES.has(localName(name))) {
      throw unreadableFile('document', `has an element named ${name}, which a pain.002.001.03 does not have`);
    }
    return name;
  },
  updateTag: (name, path) => {
    if (typeof path !== 'string' && path.getDepth() > MAX_NESTING) {
      throw unreadableFile('document', `nests elements more than ${MAX_NESTING} levels deep`);
    }
    return name;
  },
});

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The child `name` of a node, written with or without a namespace prefix; only the node's own keys count. */
function member(node: Node, name: string): unknown {
  if (Object.hasOwn(node, name)) return node[name];
  const suffix = `:${name}`;
  const key = Object.keys(node).find((candidate) => candidate.endsWith(suffix));
  return key === undefined ? undefined : node[key];
}

/** The text read into a tree, once; anything the parser cannot read is the report being unreadable. */
function parseTree(xml: string): unknown {
  try {
    return parser.parse(xml);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw unreadableFile('document', `cannot be read: ${(error as Error).message}`);
  }
}

/** The root element (its local name, namespace and content): xmlns on it, or xmlns:p for a root written p:Document. */
function rootOf(tree: unknown): { name: string; namespace: string | undefined; node: Node } | undefined {
  if (!isNode(tree)) return undefined;
  const rootKey = Object.keys(tree).find((key) => !key.startsWith('?') && !key.startsWith('#'));
  if (rootKey === undefined) return undefined;
  const root = tree[rootKey];
  const node = isNode(root) ? root : {};
  const prefix = rootKey.includes(':') ? rootKey.slice(0, rootKey.indexOf(':')) : undefined;
  const attribute = prefix === undefined ? '@_xmlns' : `@_xmlns:${prefix}`;
  const namespace = typeof node[attribute] === 'string' ? node[attribute] : undefined;
  return { name: localName(rootKey), namespace, node };
}

class Reader {
  constructor(private readonly path: string) {}

  text(node: Node, name: string): string | undefined {
    const value = member(node, name);
    if (typeof value === 'string') return value;
    if (isNode(value) && typeof value['#text'] === 'string') return value['#text'];
    return undefined;
  }

  requiredText(node: Node, name: string, where: string): string {
    const value = this.text(node, name);
    if (value === undefined || value === '') throw unreadableFile(this.path, `${where} has no ${name}`);
    return value;
  }

  child(node: Node, name: string): Node | undefined {
    const value = member(node, name);
    return isNode(value) ? value : undefined;
  }

  list(node: Node, name: string): Node[] {
    const value = member(node, name);
    return Array.isArray(value) ? value.filter(isNode) : [];
  }

  code<T extends string>(value: string | undefined, allowed: readonly T[], where: string): T | undefined {
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      throw unreadableFile(this.path, `${where} has the unknown status ${value}`);
    }
    return value as T;
  }

  reasons(node: Node): StatusReason[] {
    return this.list(node, 'StsRsnInf').map((info) => {
      const reason = this.child(info, 'Rsn');
      return {
        code: reason ? (this.text(reason, 'Cd') ?? this.text(reason, 'Prtry')) : undefined,
        additionalInfo: this.strings(info, 'AddtlInf').filter((line) => line !== ''),
      };
    });
  }

  strings(node: Node, name: string): string[] {
    const value = member(node, name);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  }
}

function firstCode(reasons: readonly StatusReason[]): string | undefined {
  return reasons.find((reason) => reason.code !== undefined)?.code;
}

/**
 * A pain.002.001.03 status report read into plain values. Refuses, with a ValidationError (code
 * bank_file_unreadable, field `document`), anything that is not well-formed XML, carries a DOCTYPE, names an
 * element __proto__, constructor or prototype, nests deeper than MAX_NESTING, is not a pain.002.001.03 Document,
 * lacks an identifier the report is useless without (message ids, a transaction's OrgnlEndToEndId) or uses a status
 * code the standard does not define. The text is checked for well-formedness, then read into a tree once.
 */
export function parsePain002(xml: string): StatusReport {
  const path = 'document';
  // ISO 20022 messages have no DTD; refusing one keeps entity expansion out of the parser altogether.
  if (/<!DOCTYPE/i.test(xml)) throw unreadableFile(path, 'must not have a DOCTYPE');
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) throw unreadableFile(path, `is not well-formed XML: ${wellFormed.err.msg}`);
  const root = rootOf(parseTree(xml));
  if (root?.name !== 'Document' || root.namespace !== NAMESPACE) {
    const found = root ? `${root.name} in namespace ${root.namespace ?? '(none)'}` : 'no root element';
    throw unreadableFile(path, `must be a pain.002.001.03 Document (${NAMESPACE}), not ${found}`);
  }
  const read = new Reader(path);
  const report = read.child(root.node, 'CstmrPmtStsRpt');
  if (!report) throw unreadableFile(path, 'must hold a CstmrPmtStsRpt');
  const header = read.child(report, 'GrpHdr');
  if (!header) throw unreadableFile(path, 'has no GrpHdr');
  const original = read.child(report, 'OrgnlGrpInfAndSts');
  if (!original) throw unreadableFile(path, 'has no OrgnlGrpInfAndSts');

  const groupStatus = read.code(read.text(original, 'GrpSts'), GROUP_STATUSES, 'OrgnlGrpInfAndSts');
  const groupReasons = read.reasons(original);
  const paymentInfos: PaymentInfoStatus[] = [];
  const transactions: TransactionStatusReport[] = [];
  for (const block of read.list(report, 'OrgnlPmtInfAndSts')) {
    const originalPaymentInfoId = read.requiredText(block, 'OrgnlPmtInfId', 'OrgnlPmtInfAndSts');
    const where = `OrgnlPmtInfAndSts ${originalPaymentInfoId}`;
    const status = read.code(read.text(block, 'PmtInfSts'), GROUP_STATUSES, where);
    const reasons = read.reasons(block);
    paymentInfos.push({ originalPaymentInfoId, status, reasons });
    for (const tx of read.list(block, 'TxInfAndSts')) {
      const originalEndToEndId = read.requiredText(tx, 'OrgnlEndToEndId', `a TxInfAndSts of ${where}`);
      const txWhere = `TxInfAndSts ${originalEndToEndId}`;
      const own = read.code(read.text(tx, 'TxSts'), TRANSACTION_STATUSES, txWhere);
      // A status given for the block or the message holds for the transactions under it (ISO 20022 pain.002).
      const inherited = [status, groupStatus].find((s) => s !== undefined);
      const effective = own ?? (TRANSACTION_STATUSES as readonly string[]).find((s) => s === inherited);
      if (effective === undefined) throw unreadableFile(path, `${txWhere} has no status`);
      const txReasons = read.reasons(tx);
      const reasonCode = firstCode(txReasons) ?? firstCode(reasons) ?? firstCode(groupReasons);
      const amountNode = read.child(read.child(read.child(tx, 'OrgnlTxRef') ?? {}, 'Amt') ?? {}, 'InstdAmt');
      const amount = amountOf(read, amountNode, txWhere);
      transactions.push({
        originalPaymentInfoId,
        originalEndToEndId,
        originalInstructionId: read.text(tx, 'OrgnlInstrId'),
        status: effective as TransactionStatus,
        reasonCode,
        reason: effective === 'RJCT' && reasonCode !== undefined ? sepaReason(reasonCode) : undefined,
        additionalInfo: txReasons.flatMap((reason) => reason.additionalInfo),
        amountMinor: amount?.minor,
        currency: amount?.currency,
      });
    }
  }
  return {
    messageId: read.requiredText(header, 'MsgId', 'GrpHdr'),
    createdAt: read.requiredText(header, 'CreDtTm', 'GrpHdr'),
    originalMessageId: read.requiredText(original, 'OrgnlMsgId', 'OrgnlGrpInfAndSts'),
    originalMessageNameId: read.requiredText(original, 'OrgnlMsgNmId', 'OrgnlGrpInfAndSts'),
    groupStatus,
    groupReasons,
    paymentInfos,
    transactions,
  };
}

function amountOf(
  read: Reader,
  node: Node | undefined,
  where: string,
): { minor: number; currency: string } | undefined {
  if (!node) return undefined;
  const text = read.text(node, '#text');
  const currency = read.text(node, '@_Ccy');
  if (text === undefined || currency === undefined) return undefined;
  let parsed: ReturnType<typeof wireAmountToMinor>;
  try {
    parsed = wireAmountToMinor(text, currency);
  } catch {
    throw unreadableFile('document', `${where} has the unknown currency ${currency}`);
  }
  if ('message' in parsed) {
    throw unreadableFile('document', `${where} has the amount ${text}: ${parsed.message}`);
  }
  return { minor: parsed.minor, currency };
}
