import fs from 'node:fs';
import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';

/** `json`: one JSON object a line (for collectors); `pretty`: coloured, one readable line an entry (for people). */
export type LogFormat = 'json' | 'pretty';

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

/** Past this much unwritten output, lines are dropped: a reader that stopped reading must not exhaust memory. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;
const EAGAIN_RETRY_MS = 10;

/**
 * Standard output as a log destination that never blocks the process and never fails it. Writes are asynchronous
 * (a stalled reader holds a thread-pool write, not the event loop); once a write fails for good (the reader has
 * gone: EPIPE), logging stops. pino's own destination instead flushes synchronously at exit and can retry a dead
 * pipe for ever, so shutdown would hang on its logs.
 */
class StdoutDestination implements DestinationStream {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing = false;
  private broken = false;
  private drained: (() => void)[] = [];

  write(line: string): void {
    if (this.broken) return;
    const chunk = Buffer.from(line);
    if (this.pendingBytes + chunk.length > MAX_PENDING_BYTES) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (!this.writing) this.writeNext();
  }

  /** Resolves once everything logged so far is written, or logging stopped, or after `timeoutMs` at the latest. */
  flush(timeoutMs: number): Promise<void> {
    if (!this.writing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.drained.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private writeNext(): void {
    const chunk = this.pending.length > 1 ? Buffer.concat(this.pending) : this.pending[0];
    if (!chunk) {
      this.writing = false;
      for (const resolve of this.drained.splice(0)) resolve();
      return;
    }
    this.writing = true;
    this.pending = [chunk];
    fs.write(1, chunk, (error, written) => {
      if (error && (error.code === 'EAGAIN' || error.code === 'EINTR')) {
        setTimeout(() => this.writeNext(), EAGAIN_RETRY_MS).unref();
        return;
      }
      if (error) {
        this.broken = true;
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        this.pending = written < chunk.length ? [chunk.subarray(written)] : [];
        this.pendingBytes -= written;
      }
      this.writeNext();
    });
  }
}

/** Pretty on a terminal, where a person reads; JSON otherwise (piped to a collector or a file). */
export function defaultLogFormat(): LogFormat {
  return process.stdout.isTTY ? 'pretty' : 'json';
}

function prettyDestination(inner: DestinationStream): DestinationStream {
  const prettify = prettyFactory({
    colorize: Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return { write: (line: string) => inner.write(prettify(line)) };
}

/** A logger writing to `stream`, or to standard output in `format` (see defaultLogFormat) when none is given. */
export function createLogger(level: string, stream?: DestinationStream, format?: LogFormat): Logger {
  const target = stream ?? new StdoutDestination();
  const formatted =
    (format ?? (stream ? 'json' : defaultLogFormat())) === 'pretty' ? prettyDestination(target) : target;
  const logger = pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, formatted);
  if (target instanceof StdoutDestination) standardOutputs.set(logger, target);
  return logger;
}

const standardOutputs = new WeakMap<Logger, StdoutDestination>();

/** Waits, `timeoutMs` at most, for what `logger` wrote to standard output to be written out. */
export function flushLogs(logger: Logger, timeoutMs: number): Promise<void> {
  return standardOutputs.get(logger)?.flush(timeoutMs) ?? Promise.resolve();
}
