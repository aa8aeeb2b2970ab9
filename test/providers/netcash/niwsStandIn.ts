import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { NIWS_NAMESPACE, NIWS_SERVICES, escapeXml, niwsAction } from '../../../src/modules/gateways/index.ts';
import type { NiwsService } from '../../../src/modules/gateways/index.ts';

/**
 * Netcash's web services (NIWS), in process: a `fetch` the netcash driver is given instead of the network. Every
 * request is checked against the method's published layout (its service address, SOAPAction, the method's element in
 * `http://tempuri.org/`, its parameters by name and in order, each value's format) and answered as Netcash's pages
 * document; a departure is kept in `problems` (and answered with the SOAP fault WCF gives), which each test expects
 * empty. Each group of methods (uploads, AVS, DebiCheck) describes its own in a file beside this one.
 */

/** One parameter of a method as the layout names it, with the check of its value (a problem in words, or null). */
export interface NiwsParameterLayout {
  name: string;
  optional?: boolean;
  check?: (value: string) => string | null;
}

/** A method's answer: a text result, or a structure of named fields (the data contract's namespace). */
export type NiwsStandInAnswer =
  string | { namespace: string; fields: readonly (readonly [string, string])[] };

export interface NiwsMethodLayout {
  service: NiwsService;
  method: string;
  parameters: readonly NiwsParameterLayout[];
  /** The published page the layout was read from (docs/gateways/netcash.md, "Sources"). */
  source: string;
  answer(values: Readonly<Record<string, string>>): NiwsStandInAnswer;
}

export interface NiwsRequest {
  method: string;
  values: Readonly<Record<string, string>>;
}

const parser = new XMLParser({
  preserveOrder: true,
  removeNSPrefix: false,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  trimValues: false,
  // Character references (`&#13;`, a NIF file's carriage returns) read as the characters, as WCF's reader does.
  htmlEntities: true,
});

type Ordered = Record<string, unknown>[];

export class NiwsStandIn {
  readonly problems: string[] = [];
  readonly requests: NiwsRequest[] = [];
  private readonly methods = new Map<string, NiwsMethodLayout>();

  constructor(layouts: readonly NiwsMethodLayout[]) {
    for (const layout of layouts) this.methods.set(`${layout.service}:${layout.method}`, layout);
  }

  /** The requests made to one method, in order. */
  callsOf(method: string): NiwsRequest[] {
    return this.requests.filter((request) => request.method === method);
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = typeof init?.body === 'string' ? init.body : '';
    const headers = new Headers(init?.headers);
    const service = (Object.keys(NIWS_SERVICES) as NiwsService[]).find(
      (key) => NIWS_SERVICES[key].url === url,
    );
    if (service === undefined) return this.fault(`no Netcash service at ${url}`, 404);
    if (init?.method !== 'POST')
      return this.fault(`${init?.method ?? 'GET'} ${url}: the services take POST`, 405);
    if (headers.get('content-type') !== 'text/xml; charset=utf-8') {
      return this.fault(
        `Content-Type ${headers.get('content-type')}: SOAP 1.1 takes text/xml; charset=utf-8`,
        415,
      );
    }
    const call = readCall(body);
    if (typeof call === 'string') return this.fault(call);
    const layout = this.methods.get(`${service}:${call.method}`);
    if (layout === undefined) return this.fault(`${NIWS_SERVICES[service].url} has no method ${call.method}`);
    const action = `"${niwsAction(NIWS_SERVICES[service].contract, call.method)}"`;
    if (headers.get('soapaction') !== action) {
      return this.fault(`SOAPAction ${headers.get('soapaction')} is not ${action} (ContractFilter mismatch)`);
    }
    const problems = [
      ...(call.namespace === NIWS_NAMESPACE
        ? []
        : [`${call.method} is in ${call.namespace}, not ${NIWS_NAMESPACE}`]),
      ...parameterProblems(layout, call.parameters),
    ];
    if (problems.length > 0) return this.fault(problems.join('; '));
    const values = Object.fromEntries(call.parameters);
    this.requests.push({ method: call.method, values });
    return soapAnswer(call.method, layout.answer(values));
  };

  private fault(message: string, status = 500): Response {
    this.problems.push(message);
    const xml =
      '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault>' +
      `<faultcode>s:Client</faultcode><faultstring>${escapeXml(message)}</faultstring>` +
      '</s:Fault></s:Body></s:Envelope>';
    return new Response(xml, { status, headers: { 'content-type': 'text/xml; charset=utf-8' } });
  }
}

interface ReadCall {
  method: string;
  namespace: string | undefined;
  parameters: [string, string][];
}

/** The method's element and its parameters, in order, from a SOAP 1.1 envelope. */
function readCall(xml: string): ReadCall | string {
  if (XMLValidator.validate(xml) !== true) return 'the request is not XML';
  const envelope = childOf(
    parser.parse(xml) as Ordered,
    'soap:Envelope',
    'http://schemas.xmlsoap.org/soap/envelope/',
  );
  if (envelope === null) return 'no SOAP 1.1 envelope';
  const body = childOf(envelope.children, 'soap:Body', 'http://schemas.xmlsoap.org/soap/envelope/');
  const calls = body?.children.filter((node) => !('#text' in node)) ?? [];
  if (calls.length !== 1) return 'the body must hold one method call';
  const element = calls[0]!;
  const method = Object.keys(element).find((key) => key !== ':@')!;
  const attributes = (element[':@'] ?? {}) as Record<string, string>;
  const parameters: [string, string][] = [];
  for (const node of element[method] as Ordered) {
    if ('#text' in node) continue;
    const name = Object.keys(node).find((key) => key !== ':@')!;
    const text = (node[name] as Ordered).map((part) => String(part['#text'] ?? '')).join('');
    parameters.push([name, text]);
  }
  return { method, namespace: attributes.xmlns, parameters };
}

/** The element named `name` among `nodes`, with its children, when its prefix is bound to `namespace`. */
function childOf(nodes: Ordered, name: string, namespace: string): { children: Ordered } | null {
  const node = nodes.find((candidate) => name in candidate);
  if (!node) return null;
  const prefix = name.split(':')[0]!;
  const attributes = (node[':@'] ?? {}) as Record<string, string>;
  if (attributes[`xmlns:${prefix}`] !== undefined && attributes[`xmlns:${prefix}`] !== namespace) return null;
  return { children: node[name] as Ordered };
}

/** The parameters against the layout: names in order, none unknown, none required missing, each value checked. */
function parameterProblems(layout: NiwsMethodLayout, parameters: readonly [string, string][]): string[] {
  const problems: string[] = [];
  let at = 0;
  for (const expected of layout.parameters) {
    const sent = parameters[at];
    if (sent === undefined || sent[0] !== expected.name) {
      if (!expected.optional) problems.push(`${layout.method}: ${expected.name} missing or out of order`);
      continue;
    }
    at += 1;
    const problem = expected.check?.(sent[1]);
    if (problem) problems.push(`${layout.method}.${expected.name}: ${problem}`);
  }
  for (const extra of parameters.slice(at)) problems.push(`${layout.method}: unknown parameter ${extra[0]}`);
  return problems;
}

function soapAnswer(method: string, answer: NiwsStandInAnswer): Response {
  const result =
    typeof answer === 'string'
      ? `<${method}Result>${escapeXml(answer)}</${method}Result>`
      : `<${method}Result xmlns:a="${answer.namespace}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">` +
        answer.fields.map(([name, value]) => `<a:${name}>${escapeXml(value)}</a:${name}>`).join('') +
        `</${method}Result>`;
  const xml =
    '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>' +
    `<${method}Response xmlns="${NIWS_NAMESPACE}">${result}</${method}Response>` +
    '</s:Body></s:Envelope>';
  return new Response(xml, { status: 200, headers: { 'content-type': 'text/xml; charset=utf-8' } });
}

/** Checks shared by the layouts. */
export const niwsChecks = {
  guid: (value: string) =>
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? null : 'not a GUID',
  date: (value: string) => (/^\d{8}$/.test(value) ? null : 'not CCYYMMDD'),
  nonEmpty: (value: string) => (value.length > 0 ? null : 'empty'),
  oneOf:
    (...allowed: string[]) =>
    (value: string) =>
      allowed.includes(value) ? null : `${value} is not one of ${allowed.join(', ')}`,
};
