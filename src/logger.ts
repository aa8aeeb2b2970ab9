import fs from 'node:fs';
import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';
import { createRequire } from 'node:module';
import type PinoPretty from 'pino-pretty';

/** `json`: one JSON object a line (for collectors); `pretty`: coloured, one readable line an entry (for people). */
export type LogFormat = 'json' | 'pretty';

/** The paths, at the top level and nested up to two objects deep (a request body under `req.body`). */
const atAnyDepth = (path: string) => [path, `*.${path}`, `*.*.${path}`];

/**
 * Credentials never reach the logs, whatever a log call is handed. Nor do card numbers, bank account numbers,
 * IBANs and debtors' identity numbers (wire and code spellings): nothing logs request bodies today, and should
 * anything ever log one, these stay out.
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
    'BankAccount.IdNumber',
    'card.number',
    'accountNumber',
    'iban',
    'idNumber',
    'bankAccount.accountNumber',
    'bankAccount.iban',
    'bankAccount.idNumber',
  ].flatMap(atAnyDepth),
];

/**
 * A URL as the logs show it: the tokens that are capabilities in a URL (a capture session's SessionToken and
 * HashToken, an eMandate's token, a portal sign-in link's or password reset's; docs/design/hosted-pages.md, "Capture widget") replaced by `[token]`. Applied to every
 * request line, also of routes that do not exist, since a mistyped page URL still carries its token.
 */
export function urlWithoutTokens(url: string): string {
  return url
    .replace(/(\/widget\/(?:capture|emandate(?:\/frame)?)\/)(?!v1\/|download\b)[^/?#]+/, '$1[token]')
    .replace(/(\/v1\/widgets\/capturepaymethod\/(?:get|build)\/)[^/?#]+/, '$1[token]')
    .replace(/(\/portal\/[^/?#]+\/(?:link|reset)\/)[^/?#]+/, '$1[token]')
    .replace(/^(\/pay\/)[^/?#]+/, '$1[token]')
    .replace(/([?&](?:token|Token|SessionToken)=)[^&#]*/g, '$1[token]');
}

/** A request in a log line: Fastify's own fields, with the URL's tokens left out (urlWithoutTokens). */
function requestForLog(request: {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}) {
  return {
    method: request.method,
    url: request.url === undefined ? undefined : urlWithoutTokens(request.url),
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Past this much unwritten output, lines are dropped: a reader that stopped reading must not exhaust memory. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;
/** One write takes lines up to about this much (a pipe's buffer on Linux), so a slow reader costs no re-copying. */
const WRITE_BATCH_BYTES = 64 * 1024;
const EAGAIN_RETRY_MS = 10;

/**
 * Standard output (or another descriptor) as a log destination that never blocks the process and never fails it.
 * Writes are asynchronous (a stalled reader holds a thread-pool write, not the event loop); lines logged while a
 * write is under way wait behind it, in order, and count towards the cap until written; once a write fails for good
 * (the reader has gone: EPIPE), logging stops. pino's own destination instead flushes synchronously at exit and can
 * retry a dead pipe for ever, so shutdown would hang on its logs.
 */
export class StdoutDestination implements DestinationStream {
  /** Lines not yet written, oldest first; the first may be the unwritten rest of a partial write. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing = false;
  private broken = false;
  private drained: (() => void)[] = [];

  /** `fd` must not block on a full pipe (see nonBlockingStandardOutput): tests pass a pipe of their own. */
  constructor(private readonly fd = nonBlockingStandardOutput()) {}

  /** Bytes logged and not yet written (what the cap is measured against). */
  get unwrittenBytes(): number {
    return this.pendingBytes;
  }

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

  /** Takes the oldest pending lines, up to a batch, out of `pending`. */
  private takeBatch(): Buffer | undefined {
    let count = 0;
    let bytes = 0;
    while (
      count < this.pending.length &&
      (count === 0 || bytes + this.pending[count]!.length <= WRITE_BATCH_BYTES)
    ) {
      bytes += this.pending[count]!.length;
      count++;
    }
    const batch = this.pending.splice(0, count);
    return batch.length > 1 ? Buffer.concat(batch, bytes) : batch[0];
  }

  private writeNext(): void {
    const chunk = this.takeBatch();
    if (!chunk) {
      this.writing = false;
      for (const resolve of this.drained.splice(0)) resolve();
      return;
    }
    this.writing = true;
    fs.write(this.fd, chunk, (error, written) => {
      if (error && (error.code === 'EAGAIN' || error.code === 'EINTR')) {
        this.pending.unshift(chunk);
        setTimeout(() => this.writeNext(), EAGAIN_RETRY_MS).unref();
        return;
      }
      if (error) {
        this.broken = true;
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        // Lines logged meanwhile were pushed behind; the unwritten rest goes back in front of them.
        if (written < chunk.length) this.pending.unshift(chunk.subarray(written));
        this.pendingBytes -= written;
      }
      this.writeNext();
    });
  }
}

/**
 * Standard output's descriptor, made non-blocking when it is a pipe: Node does so when it first opens
 * `process.stdout` on a pipe (libuv's uv_pipe_open). A write into a full pipe then fails with EAGAIN and is retried,
 * where a blocking one would hold a thread-pool thread until the reader reads, and exit waits for that thread: a
 * stalled collector would keep the process from ever exiting.
 */
function nonBlockingStandardOutput(): number {
  return process.stdout.fd;
}

/** Pretty on a terminal, where a person reads; JSON otherwise (piped to a collector or a file). */
export function defaultLogFormat(): LogFormat {
  return process.stdout.isTTY ? 'pretty' : 'json';
}

function prettyDestination(inner: DestinationStream): DestinationStream {
  // Loaded only for a pretty log, so that a process logging JSON (or to a command's stderr) does not carry it.
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
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
  const logger = pino(
    { level, redact: { paths: REDACT, censor: '[redacted]' }, serializers: { req: requestForLog } },
    formatted,
  );
  if (target instanceof StdoutDestination) standardOutputs.set(logger, target);
  return logger;
}

const standardOutputs = new WeakMap<Logger, StdoutDestination>();

/** Waits, `timeoutMs` at most, for what `logger` wrote to standard output to be written out. */
export function flushLogs(logger: Logger, timeoutMs: number): Promise<void> {
  return standardOutputs.get(logger)?.flush(timeoutMs) ?? Promise.resolve();
}
