import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';

/** Credentials never reach the logs, whatever a log call is handed. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.Password',
  '*.password',
  '*.apiKey',
];

export function createLogger(level: string, stream?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, stream);
}
