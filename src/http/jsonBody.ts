import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ValidationError } from '../errors.ts';

/**
 * Where in a parsed JSON value a string holds a NUL character, as a field path; undefined if nowhere.
 * Walks with its own stack: a body may nest deeper than the call stack allows.
 */
function pathOfNul(root: unknown): string | undefined {
  const pending: { value: unknown; path: string }[] = [{ value: root, path: '' }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        pending.push({
          value: child,
          path: Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key,
        });
      }
    }
  }
  return undefined;
}

export const MAX_JSON_DEPTH = 64;

/** Whether arrays and objects nest deeper than `max` (read from the text, so nothing recurses on hostile input). */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      if (++depth > max) return true;
    } else if (char === '}' || char === ']') depth--;
  }
  return false;
}

function malformed(): Error {
  return Object.assign(new Error('The body is not valid JSON'), {
    statusCode: 400,
    code: 'FST_ERR_CTP_INVALID_JSON_BODY',
  });
}

/**
 * JSON bodies, parsed against prototype poisoning. An empty body (some clients send one with PUT and DELETE)
 * counts as no body rather than malformed JSON. Text holding NUL is refused on every dialect, since PostgreSQL
 * text cannot store it, and so is nesting deeper than any request of ours needs (later code may recurse).
 */
export function registerJsonBodies(app: FastifyInstance): void {
  // Only JSON: Fastify's own text/plain parser would let a JSON-looking text body through.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch {
      return done(malformed(), undefined);
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(
        ValidationError.field('body', `must not nest more than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
    }
    // JSON can only carry NUL escaped, so bodies without the escape need no walk.
    const nulAt = text.includes('\\u0000') ? pathOfNul(parsed) : undefined;
    if (nulAt !== undefined) {
      return done(
        ValidationError.field(nulAt || 'body', 'must not contain NUL (\\u0000) characters'),
        undefined,
      );
    }
    done(null, parsed);
  });
}
