import { beforeAll, describe, expect, it } from 'vitest';
import { useTestService } from '../helpers/testService.ts';

/**
 * NUL in a path or query parameter is refused as in a body (docs/spec-decisions.md, "Request bodies"): walked over
 * every operation of the API reference, every path parameter and every query parameter, on both dialects.
 * PostgreSQL cannot hold NUL in text, so before the check several of these answered 500 there.
 */

type Json = Record<string, any>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  example?: unknown;
  schema?: Json;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
}

let operations: Operation[];
const t = useTestService();
beforeAll(async () => {
  const document = (await t.request('GET', '/openapi.json', { auth: false })).body as Json;
  operations = Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        parameters: ((operation as Json).parameters ?? []) as Parameter[],
      })),
  );
});

/** `path` with each parameter given its example (a realistic value), or `replacements` where given. */
function urlOf(operation: Operation, replacements: Record<string, string> = {}): string {
  return operation.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    if (name in replacements) return replacements[name]!;
    const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
    return encodeURIComponent(String(parameter?.example ?? parameter?.schema?.example ?? 1));
  });
}

const WITH_NUL = 'a%00b';

/** Undefined when `url` is refused with 422 naming `field` for its NUL; otherwise what came instead. */
async function refusal(method: string, url: string, field: string): Promise<string | undefined> {
  const response = await t.request(method, url);
  const fields = response.body?.fields as { field: string; message: string }[] | undefined;
  const named = fields?.length === 1 && fields[0]!.field === field && fields[0]!.message.includes('NUL');
  if (response.status === 422 && named) return undefined;
  return `${method} ${url}: ${response.status} ${response.text.slice(0, 200)}`;
}

describe('NUL in a path or query parameter is a 422 naming it, on every route', () => {
  it('in every path parameter', async () => {
    const cases = operations.flatMap((operation) =>
      operation.parameters
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => ({ operation, parameter })),
    );
    expect(cases.length).toBeGreaterThan(50);
    const wrong: string[] = [];
    for (const { operation, parameter } of cases) {
      const url = urlOf(operation, { [parameter.name]: WITH_NUL });
      const problem = await refusal(operation.method, url, parameter.name);
      if (problem) wrong.push(problem);
    }
    expect(wrong).toEqual([]);
  });

  it('in every query parameter', async () => {
    const cases = operations.flatMap((operation) =>
      operation.parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => ({ operation, parameter })),
    );
    expect(cases.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const { operation, parameter } of cases) {
      const url = `${urlOf(operation)}?${encodeURIComponent(parameter.name)}=${WITH_NUL}`;
      const problem = await refusal(operation.method, url, parameter.name);
      if (problem) wrong.push(problem);
    }
    expect(wrong).toEqual([]);
  });

  it('the cases a review found, and a query parameter no route defines', async () => {
    for (const [url, field] of [
      ['/v1/batches/%00', 'BatchToken'],
      ['/v1/events/evt_%00', 'eventID'],
      ['/v1/auditlog?requestID=%00', 'requestID'],
      ['/v1/customers?Email=%00', 'Email'],
      ['/v1/customers?x%00=1', 'querystring'],
    ] as const) {
      expect(await refusal('GET', url, field)).toBeUndefined();
    }
  });

  it('still answers 401 first to a caller without credentials', async () => {
    expect((await t.request('GET', '/v1/batches/%00', { auth: false })).status).toBe(401);
  });
});
