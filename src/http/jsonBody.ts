import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ValidationError } from '../errors.ts';

/**
 * Where in a parsed JSON value `found` first holds for a value (given the key it is under), as a field path;
 * undefined if nowhere. Walks with its own stack: a body may nest deeper than the call stack allows.
 */
function pathWhere(root: unknown, found: (value: unknown, key: string) => boolean): string | undefined {
  const pending: { value: unknown; key: string; path: string }[] = [{ value: root, key: '', path: '' }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, key, path } = next;
    if (found(value, key)) return path;
    if (value !== null && typeof value === 'object') {
      for (const [childKey, child] of Object.entries(value)) {
        pending.push({
          value: child,
          key: childKey,
          path: Array.isArray(value) ? `${path}[${childKey}]` : path ? `${path}.${childKey}` : childKey,
        });
      }
    }
  }
  return undefined;
}

const holdsNul = (value: unknown) => typeof value === 'string' && value.includes('\u0000');

/**
 * A key that would reach an object's prototype if code merged the body into an object: `__proto__`, or a
 * `constructor` holding a `prototype` (what secure-json-parse refuses). JSON.parse keeps them as own keys.
 */
const reachesPrototype = (value: unknown, key: string) =>
  key === '__proto__' ||
  (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'));

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
    let poisoned = false;
    try {
      parsed = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (error) {
      // secure-json-parse parses first, so a body it refuses for a prototype key is valid JSON.
      poisoned = error instanceof SyntaxError && /forbidden prototype property/.test(error.message);
      if (!poisoned) return done(malformed(), undefined);
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(
        ValidationError.field('body', `must not nest more than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
    }
    // Refused like any other unknown field, wherever it is: no object of ours may take it (docs/spec-decisions.md,
    // "Request bodies"). Dropping it silently would accept a body with a field the service never read.
    if (poisoned) {
      const at = pathWhere(JSON.parse(text), reachesPrototype);
      return done(at ? ValidationError.field(at, 'unknown field') : malformed(), undefined);
    }
    // JSON can only carry NUL escaped, so bodies without the escape need no walk.
    const nulAt = text.includes('\\u0000') ? pathWhere(parsed, holdsNul) : undefined;
    if (nulAt !== undefined) {
      return done(
        ValidationError.field(nulAt || 'body', 'must not contain NUL (\\u0000) characters'),
        undefined,
      );
    }
    done(null, parsed);
  });
}
