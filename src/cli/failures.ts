import { CommanderError } from 'commander';
import { ConfigError, loadConfig, withoutPassword } from '../config.ts';
import { DomainError, ValidationError } from '../errors.ts';

/**
 * How the `billing` command ends when something goes wrong: one line on standard error, never a stack trace
 * (`LOG_LEVEL=debug` adds it, for a bug report), and an exit status a script can act on.
 */
export const EXIT_FAILURE = 1;
/** The command line was wrong: an unknown option, a missing or malformed argument. */
export const EXIT_USAGE = 2;

/** Bad usage found after parsing (a value of the wrong shape): reported as commander reports its own. */
export class UsageError extends Error {}

/** Failures a script can meet in normal operation, named by their error code. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

interface ErrnoLike {
  code?: unknown;
  syscall?: unknown;
  address?: unknown;
  port?: unknown;
  message?: unknown;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** The database the configuration names, without a password: for messages. */
function databaseName(): string {
  try {
    const target = loadConfig().database;
    return target.dialect === 'sqlite' ? target.file : withoutPassword(target.url);
  } catch {
    return 'the database';
  }
}

/** The first failure inside an AggregateError (a connection tried on several addresses), or the error itself. */
function innermost(error: unknown): ErrnoLike {
  if (error instanceof AggregateError && error.errors.length > 0) return innermost(error.errors[0]);
  return typeof error === 'object' && error !== null ? (error as ErrnoLike) : { message: String(error) };
}

export function describeFailure(error: unknown): { line: string; status: number } {
  if (error instanceof UsageError) return { line: `error: ${oneLine(error.message)}`, status: EXIT_USAGE };
  if (error instanceof ConfigError) {
    return { line: `Configuration error: ${oneLine(error.message)}`, status: EXIT_USAGE };
  }
  // A value the domain refuses (a time zone, a settings object) is a malformed argument too.
  if (error instanceof ValidationError)
    return { line: `Error: ${oneLine(error.message)}`, status: EXIT_USAGE };
  if (error instanceof DomainError) return { line: `Error: ${oneLine(error.message)}`, status: EXIT_FAILURE };

  const cause = innermost(error);
  const message = oneLine(String(cause.message || cause.code || error));
  if (cause.code === 'EADDRINUSE' || cause.code === 'EACCES') {
    // A worker of `serve --workers N` is told of the primary's failure to listen as a failed `bind`.
    if (cause.syscall === 'listen' || cause.syscall === 'bind') {
      const where = `${String(cause.address ?? '')}:${String(cause.port ?? '')}`;
      const why = cause.code === 'EADDRINUSE' ? 'the port is already in use' : 'permission denied';
      return { line: `Error: cannot listen on ${where}: ${why} (set PORT or HOST)`, status: EXIT_FAILURE };
    }
  }
  if (typeof cause.code === 'string' && NETWORK_CODES.has(cause.code)) {
    return { line: `Error: cannot reach the database ${databaseName()}: ${message}`, status: EXIT_FAILURE };
  }
  if (typeof cause.code === 'string' && cause.code.startsWith('SQLITE_CANTOPEN')) {
    return { line: `Error: cannot open the database ${databaseName()}: ${message}`, status: EXIT_FAILURE };
  }
  return { line: `Error: ${message}`, status: EXIT_FAILURE };
}

/** Ends the process for a failure thrown by parsing or by a command. */
export function exitWithFailure(error: unknown): never {
  if (error instanceof CommanderError) {
    // Commander has written its message (or the help) already.
    process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
  }
  const { line, status } = describeFailure(error);
  process.stderr.write(`${line}\n`);
  if (['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '') && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
  }
  process.exit(status);
}
