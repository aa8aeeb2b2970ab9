import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';

/** The paths, at the top level and nested up to two objects deep (a request body under `req.body`). */
const atAnyDepth = (path: string) => [path, `*.${path}`, `*.*.${path}`];

/**
 * Credentials never reach the logs, whatever a log call is handed. Nor do card numbers, bank account numbers and
 * IBANs (wire and code spellings): nothing logs request bodies today, and should anything ever log one, these stay
 * out.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.Password',
  '*.password',
  '*.apiKey',
  ...[
    'CreditCard.Number',
    'BankAccount.AccountNumber',
    'BankAccount.IBAN',
    'card.number',
    'accountNumber',
    'iban',
    'bankAccount.accountNumber',
    'bankAccount.iban',
  ].flatMap(atAnyDepth),
];

export function createLogger(level: string, stream?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, stream);
}
