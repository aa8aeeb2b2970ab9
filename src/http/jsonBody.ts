import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ValidationError } from '../errors.ts';

/** Where in a parsed JSON value a string holds a NUL character, as a field path; undefined if nowhere. */
function pathOfNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    const found = pathOfNul(child, childPath);
    if (found !== undefined) return found;
  }
  return undefined;
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
 * text cannot store it.
 */
export function registerJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
    } catch {
      return done(malformed(), undefined);
    }
    // JSON can only carry NUL escaped, so bodies without the escape need no walk.
    const nulAt = text.includes('\\u0000') ? pathOfNul(parsed, '') : undefined;
    if (nulAt !== undefined) {
      return done(
        ValidationError.field(nulAt || 'body', 'must not contain NUL (\\u0000) characters'),
        undefined,
      );
    }
    done(null, parsed);
  });
}
