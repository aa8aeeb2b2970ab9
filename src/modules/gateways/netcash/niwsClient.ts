import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { GatewayTimeoutError } from '../gatewayContract.ts';

/**
 * Netcash's web services (NIWS) as the netcash driver calls them: SOAP 1.1 over HTTPS, one WCF contract per service
 * (docs/gateways/netcash.md, "The web services"). Every call is an element named after the method in the
 * `http://tempuri.org/` namespace holding its parameters in the order the service's schema lists them; the answer is
 * `<MethodResponse><MethodResult>…`, a text (a code, a file token, a tab-delimited report) or, for the DebiCheck
 * calls, a structure. The HTTP client is injected (`fetch` in production, the stand-in in tests). A call that gets
 * no answer within the timeout throws GatewayTimeoutError: Netcash may have acted on it.
 */

/** The services' addresses, as Netcash's pages give them. */
export const NIWS_SERVICES = {
  /**
   * Files in and out: BatchFileUpload, RequestFileUploadReport, the statement, the DebiCheck calls, and account
   * verification (AVSRealtimeQuery, RequestAVSReport: "AVS real-time" gives this service's address).
   */
  nif: { url: 'https://ws.netcash.co.za/NIWS/niws_nif.svc', contract: 'INIWS_NIF' },
  /**
   * The offline checks ("ZA Bank Account Validation": ValidateBankAccount, the check digit of an account number,
   * branch code and type; GetBankListWithDefaultBranchCode), not account verification. The contract's name is the
   * WSDL's, as generated clients bind it (BasicHttpBinding_INIWS_Validation).
   */
  validation: { url: 'https://ws.netcash.co.za/NIWS/niws_validation.svc', contract: 'INIWS_Validation' },
} as const;

export type NiwsService = keyof typeof NIWS_SERVICES;

/** The namespace of the services' contracts and of every method's element (WCF's default, kept by Netcash). */
export const NIWS_NAMESPACE = 'http://tempuri.org/';

/** A method's parameters, in the order the schema lists them (WCF reads a sequence in order). */
export type NiwsParameters = readonly (readonly [name: string, value: string])[];

/** What a method answered: its `…Result` element, as text or as a parsed structure (element names, prefixes dropped). */
export type NiwsResult = string | { readonly [name: string]: unknown };

/** A SOAP fault, or an answer that is not the method's: Netcash did not do what was asked, in its words. */
export class NiwsFaultError extends Error {
  constructor(
    readonly method: string,
    message: string,
  ) {
    super(`Netcash ${method}: ${message}`);
    this.name = 'NiwsFaultError';
  }
}

export interface NiwsClient {
  call(service: NiwsService, method: string, parameters: NiwsParameters): Promise<NiwsResult>;
}

/**
 * Netcash waits up to 120 seconds for a bank's answer to a real-time DebiCheck authentication, and asks its callers
 * to wait longer than that (api.netcash.co.za, "DebiCheck TT1").
 */
export const NIWS_TIMEOUT_MS = 180_000;

export function niwsClient(fetchFn: typeof fetch, timeoutMs: number = NIWS_TIMEOUT_MS): NiwsClient {
  return {
    async call(service, method, parameters) {
      const { url, contract } = NIWS_SERVICES[service];
      let response: Response;
      let text: string;
      try {
        response = await fetchFn(url, {
          method: 'POST',
          headers: {
            'content-type': 'text/xml; charset=utf-8',
            soapaction: `"${niwsAction(contract, method)}"`,
          },
          body: niwsEnvelope(method, parameters),
          signal: AbortSignal.timeout(timeoutMs),
        });
        text = await response.text();
      } catch {
        throw new GatewayTimeoutError(`Netcash ${method}`);
      }
      return readNiwsAnswer(method, text);
    },
  };
}

/** The SOAPAction of a method: `http://tempuri.org/<contract>/<method>`. */
export const niwsAction = (contract: string, method: string) => `${NIWS_NAMESPACE}${contract}/${method}`;

/** The request's envelope: the method's element in Netcash's namespace, its parameters in order, escaped. */
export function niwsEnvelope(method: string, parameters: NiwsParameters): string {
  const body = parameters.map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`).join('');
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' +
    `<soap:Body><${method} xmlns="${NIWS_NAMESPACE}">${body}</${method}></soap:Body>` +
    '</soap:Envelope>'
  );
}

const XML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // NOTE: an XML reader turns a carriage return it reads into a line feed (XML 1.0, 2.11 "End-of-Line Handling");
  // written as a character reference it reaches the service as sent, so a NIF file's CRLF line ends arrive intact.
  '\r': '&#13;',
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r]/g, (c) => XML_ENTITIES[c]!);
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  // NOTE: named `htmlEntities`, it is what decodes character references (`&#13;`, `&#9;`): WCF writes a text's
  // carriage returns so, and a statement's tabs may come so; an XML reader must read them as the characters.
  htmlEntities: true,
});

/**
 * The method's result from the answer's envelope. A fault, a body that is not XML (a proxy's error page) or an answer
 * without the method's result throws NiwsFaultError with what it said; an empty result reads as ''.
 */
export function readNiwsAnswer(method: string, xml: string): NiwsResult {
  if (XMLValidator.validate(xml) !== true) throw new NiwsFaultError(method, 'the answer is not XML');
  const body = (parser.parse(xml) as Record<string, Record<string, unknown> | undefined>)?.Envelope?.Body as
    Record<string, unknown> | undefined;
  const fault = body?.Fault as { faultstring?: unknown } | undefined;
  if (fault !== undefined) throw new NiwsFaultError(method, String(fault.faultstring ?? 'a SOAP fault'));
  const answer = body?.[`${method}Response`];
  if (answer === undefined || answer === null)
    throw new NiwsFaultError(method, `no ${method}Response in the answer`);
  const result = typeof answer === 'object' ? (answer as Record<string, unknown>)[`${method}Result`] : '';
  if (result === undefined || result === null || result === '') return '';
  if (typeof result === 'string') return result;
  if (typeof result === 'object') return result as Record<string, unknown>;
  return String(result);
}
