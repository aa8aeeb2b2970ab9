import { escapeHtml } from '../../core/htmlText.ts';
import { FAVICON_LINK } from '../../http/favicon.ts';
import { localDateTimeText } from '../../core/calendar.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Emandate } from './emandate.ts';
import { consentText, documentSections } from './mandateDocument.ts';

/**
 * The hosted signing page (docs/design/hosted-pages.md, "eMandate pages"), rendered on the server: no script but
 * the frame's messenger, no outside resource, styles by nonce, readable at 320 px, every control labelled and
 * reachable by keyboard.
 */

export type PageVariant = 'redirect' | 'frame';

export interface PageOptions {
  variant: PageVariant;
  /** The token the page was asked for (the service keeps only its digest): the frame's messages carry it. */
  token: string | null;
  nonce: string;
  /** The frame's id, given by the loader: every message carries it. */
  widgetId: string | null;
  /** The origin the frame's messages go to (the mandate's AuthDomain). */
  parentOrigin: string | null;
  /** Where the sign form posts, and where the PDF is ('' once the public link no longer downloads it). */
  signAction: string;
  declineAction: string;
  downloadUrl: string;
  /** The account's time zone, in which the page tells when the mandate was signed. */
  timeZone?: string;
  problems?: FieldProblem[];
  /** What the signee typed, shown again after a refusal. */
  values?: Record<string, string>;
  /** Shown instead of the mandate (an unusable frame). */
  error?: string;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff}
main{max-width:40rem;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:0 0 .5rem}
h2{font-size:1.05rem;margin:1.25rem 0 .25rem;border-bottom:1px solid #ccc}
dl{display:grid;grid-template-columns:minmax(7rem,40%) 1fr;gap:.15rem .75rem;margin:0}
dt{color:#444}
dd{margin:0;overflow-wrap:anywhere}
label{display:block;font-weight:600;margin-top:.75rem}
input[type=text],input[type=email],input[type=tel]{width:100%;padding:.5rem;font:inherit;border:1px solid #666;border-radius:4px}
.consent{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin-top:1rem}
.consent input{margin-top:.3rem;width:1.25rem;height:1.25rem;flex:none}
button{margin-top:1rem;padding:.75rem 1.25rem;font:inherit;font-weight:600;color:#fff;background:#0b5394;border:0;border-radius:4px;width:100%}
button.secondary{color:#0b5394;background:#fff;border:2px solid #0b5394}
button:focus,input:focus,a:focus,.problems:focus{outline:3px solid #f4b400;outline-offset:2px}
.problems{border:2px solid #b00020;padding:.5rem 1rem;color:#b00020}
.error{color:#b00020;font-weight:400}
.done{border:2px solid #1e7b34;padding:.5rem 1rem}
a{color:#0b5394}
@media (max-width:30rem){dl{grid-template-columns:1fr}dt{margin-top:.4rem}}
`;

/**
 * The redirect pages follow the signee's colour scheme (prefers-color-scheme), every colour pair at least AA's
 * 4.5:1 (docs/design/hosted-pages.md, "eMandate pages"). The frame stays light, as the capture widget's does: it
 * sits on the merchant's page, whose scheme we do not know, and the loader gives it a white background.
 */
const DARK_STYLE = `
:root{color-scheme:light dark}
@media (prefers-color-scheme:dark){
body{color:#e8e8e8;background:#121212}
h2{border-bottom-color:#555}
dt{color:#b8b8b8}
input[type=text],input[type=email],input[type=tel]{color:#e8e8e8;background:#1e1e1e;border-color:#8a8a8a}
button{color:#121212;background:#8cc4ff}
button.secondary{color:#8cc4ff;background:transparent;border-color:#8cc4ff}
.problems,.error{color:#ff8a80}
.problems{border-color:#ff8a80}
.done{border-color:#5cc97a}
a{color:#8cc4ff}
}
`;

function sectionsHtml(mandate: Emandate): string {
  return documentSections(mandate)
    .map(
      (section) =>
        `<section aria-labelledby="s-${section.title.replace(/\W/g, '')}"><h2 id="s-${section.title.replace(/\W/g, '')}">${escapeHtml(section.title)}</h2><dl>${section.rows
          .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`)
          .join('')}</dl></section>`,
    )
    .join('\n');
}

/** The basic information a signee may correct when the mandate is isCustomerEditable. */
const EDITABLE: [name: string, label: string, type: string, pick: (m: Emandate) => string | null][] = [
  ['Tel', 'Telephone', 'tel', (m) => m.signee.tel],
  ['Email', 'E-mail', 'email', (m) => m.signee.email],
  ['Address1', 'Address line 1', 'text', (m) => m.signee.address1],
  ['Address2', 'Address line 2', 'text', (m) => m.signee.address2],
  ['City', 'City', 'text', (m) => m.signee.city],
  ['State', 'State or province', 'text', (m) => m.signee.state],
  ['PostalCode', 'Postal code', 'text', (m) => m.signee.postalCode],
];

/** A field as the signee knows it, for the list of problems. */
function labelOf(field: string): string {
  if (field === 'TypedName') return 'Your typed name';
  return EDITABLE.find(([name]) => name === field)?.[1] ?? field;
}

function problemFor(options: PageOptions, field: string): string | undefined {
  return options.problems?.find((p) => p.field === field)?.message;
}

function input(
  options: PageOptions,
  name: string,
  label: string,
  type: string,
  value: string,
  extra = '',
): string {
  const problem = problemFor(options, name);
  const id = `f-${name}`;
  return (
    `<label for="${id}">${escapeHtml(label)}${problem ? ` <span class="error" id="${id}-error">(${escapeHtml(problem)})</span>` : ''}</label>` +
    `<input type="${type}" id="${id}" name="${name}" value="${escapeHtml(value)}"${problem ? ` aria-invalid="true" aria-describedby="${id}-error"` : ''}${extra}>`
  );
}

function formHtml(mandate: Emandate, options: PageOptions): string {
  const values = options.values ?? {};
  const editable = mandate.isCustomerEditable
    ? `<h2>Your details</h2><p>You may correct these before you sign.</p>${EDITABLE.map(
        ([name, label, type, pick]) => input(options, name, label, type, values[name] ?? pick(mandate) ?? ''),
      ).join('')}`
    : '';
  const consentProblem = problemFor(options, 'Consent');
  const problems = options.problems?.length
    ? `<div class="problems" role="alert" id="error-summary" tabindex="-1" aria-labelledby="error-summary-title"><p id="error-summary-title">The mandate was not signed:</p><ul>${options.problems
        .map(
          (p) =>
            `<li>${escapeHtml(p.field === 'Consent' ? 'Tick the box to agree to the mandate.' : `${labelOf(p.field)} ${p.message}.`)}</li>`,
        )
        .join('')}</ul></div>`
    : '';
  return `${problems}
<form method="post" action="${escapeHtml(options.signAction)}" novalidate>
${editable}
<h2>Sign</h2>
<label class="consent" for="f-Consent"><input type="checkbox" id="f-Consent" name="Consent" value="yes"${consentProblem ? ' aria-invalid="true"' : ''}><span>${escapeHtml(consentText(mandate))}</span></label>
${input(options, 'TypedName', `Type your full name (${mandate.signee.name} ${mandate.signee.lastName}) to sign`, 'text', values['TypedName'] ?? '', ' autocomplete="name" required')}
<button type="submit">Sign mandate</button>
</form>
<form method="post" action="${escapeHtml(options.declineAction)}">
<button type="submit" class="secondary">Decline</button>
</form>`;
}

function messengerScript(options: PageOptions, type: string, data: Record<string, unknown>): string {
  if (options.variant !== 'frame' || !options.parentOrigin || !options.widgetId) return '';
  const message = { ns: 'billing-widget', v: 1, widgetId: options.widgetId, type, data };
  // JSON in a script: `<` escaped so that no value can close the element.
  const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
  return `<script nonce="${options.nonce}">(function(){var m=${json(message)};var o=${json(options.parentOrigin)};if(window.parent!==window){window.parent.postMessage(m,o);window.parent.postMessage({ns:m.ns,v:1,widgetId:m.widgetId,type:'widget.resize',data:{height:document.documentElement.scrollHeight}},o);}})();</script>`;
}

function page(title: string, body: string, options: PageOptions, script = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${FAVICON_LINK}
<title>${escapeHtml(title)}</title>
<style nonce="${options.nonce}">${STYLE}${options.variant === 'redirect' ? DARK_STYLE : ':root{color-scheme:light}'}</style>
</head>
<body>
<main>
${body}
</main>
${script}
</body>
</html>
`;
}

export const PAGE_TITLE = 'Sign the debit mandate';

/**
 * A DebiCheck mandate's page tells the debtor where their bank's approval is (docs/design/mandates.md, "DebiCheck"):
 * they approve it with their bank, not here.
 */
function debiCheckNotice(mandate: Emandate, timeZone: string): string {
  const debiCheck = mandate.debiCheck;
  if (debiCheck === null) return '';
  const bank = escapeHtml(mandate.bankAccount.bankName);
  const until = debiCheck.expiresAt ? localDateTimeText(debiCheck.expiresAt, timeZone) : '';
  const words: Record<string, string> = {
    none: `This is a DebiCheck debit order: ${bank} will ask you to approve it before anything is debited.`,
    pending: `DebiCheck: ${bank} has asked you to approve this debit order. Approve it in your banking app or as your bank asks, before ${escapeHtml(until)}.`,
    authenticated: `DebiCheck: you approved this debit order with ${bank}.`,
    declined: `DebiCheck: this debit order was declined with ${bank}; nothing is debited under it.`,
    expired: `DebiCheck: the approval request from ${bank} expired; ${escapeHtml(mandate.beneficiary.name)} may ask again.`,
    cancelled: 'DebiCheck: the approval of this debit order was cancelled.',
  };
  return `<p id="debicheck-status">${words[debiCheck.status ?? 'none']}</p>`;
}

/** The page of a mandate in any state: the form while it waits, the outcome after. */
export function renderMandatePage(mandate: Emandate, options: PageOptions): string {
  const intro = `<h1>${escapeHtml(PAGE_TITLE)}</h1><p>${escapeHtml(mandate.beneficiary.name)} asks you to authorise debits from your bank account.</p>`;
  if (mandate.status === 'signed') {
    const returnLink =
      options.variant === 'redirect' && mandate.returnUrl
        ? `<p><a href="${escapeHtml(mandate.returnUrl)}">Return to ${escapeHtml(mandate.beneficiary.name)}</a></p>`
        : '';
    const download = options.downloadUrl
      ? `<p><a href="${escapeHtml(options.downloadUrl)}">Download the signed mandate (PDF)</a></p>`
      : `<p>The download link has expired. Ask ${escapeHtml(mandate.beneficiary.name)} for a copy of the signed mandate.</p>`;
    const body = `<h1>${escapeHtml('Mandate signed')}</h1><div class="done" role="status"><p>You signed this mandate on ${escapeHtml(
      mandate.signing ? localDateTimeText(mandate.signing.signedAt, options.timeZone ?? 'UTC') : '',
    )}.</p>${debiCheckNotice(mandate, options.timeZone ?? 'UTC')}${download}${returnLink}</div>\n${sectionsHtml(mandate)}`;
    return page(
      'Mandate signed',
      body,
      options,
      messengerScript(options, 'emandate.signed', { token: options.token }),
    );
  }
  if (mandate.status === 'cancelled') {
    // docs/spec-decisions.md, "Cancelling an eMandate": signed, then ended by the beneficiary; nothing to sign.
    const download = options.downloadUrl
      ? `<p><a href="${escapeHtml(options.downloadUrl)}">Download the signed mandate (PDF)</a></p>`
      : '';
    const body = `<h1>Mandate cancelled</h1><div role="status"><p>This mandate was cancelled on ${escapeHtml(
      mandate.cancelledAt ?? '',
    )} (UTC): nothing more will be debited under it.</p>${download}</div>\n${sectionsHtml(mandate)}`;
    return page('Mandate cancelled', body, options, messengerScript(options, 'widget.ready', {}));
  }
  if (mandate.status === 'rejected') {
    const cancelLink =
      options.variant === 'redirect' && mandate.cancelUrl
        ? `<p><a href="${escapeHtml(mandate.cancelUrl)}">Return to ${escapeHtml(mandate.beneficiary.name)}</a></p>`
        : '';
    const body = `<h1>Mandate declined</h1><p role="status">You declined this mandate: nothing will be debited under it.</p>${cancelLink}`;
    return page(
      'Mandate declined',
      body,
      options,
      messengerScript(options, 'emandate.failed', { token: options.token, reason: 'declined' }),
    );
  }
  if (mandate.status === 'expired') {
    const body = `<h1>Mandate expired</h1><p role="alert">This mandate was not signed within 24 hours and can no longer be signed. Ask ${escapeHtml(
      mandate.beneficiary.name,
    )} for a new one.</p>`;
    return page(
      'Mandate expired',
      body,
      options,
      messengerScript(options, 'emandate.failed', { token: options.token, reason: 'expired' }),
    );
  }
  const body = `${intro}\n${sectionsHtml(mandate)}\n${formHtml(mandate, options)}`;
  // After a failed submit the summary takes the focus, as GOV.UK's error summary does (docs/hosted-pages.md,
  // "eMandates: a debit authority signed online"): a screen reader reads it and Tab goes on into the form.
  const focus = options.problems?.length
    ? `<script nonce="${options.nonce}">document.getElementById('error-summary').focus();</script>`
    : '';
  return page(PAGE_TITLE, body, options, focus + messengerScript(options, 'widget.ready', {}));
}

/** A page that cannot show a mandate: unknown token, or a frame no origin may show. */
export function renderErrorPage(title: string, message: string, options: PageOptions): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p role="alert">${escapeHtml(message)}</p>`, options);
}
