import { escapeHtml } from '../../core/htmlText.ts';
import { hostedFieldsAdapter } from './hostedFieldsScripts.ts';

/**
 * The markup of the page that pays one invoice (docs/hosted-pages.md, "Paying one invoice"): plain HTML with one
 * script and one style sheet by nonce, no inline handlers, no third-party resource but the capture frame of our
 * own origin.
 */

/** A provider's script the page confirms with, and what its adapter (hostedFieldsScripts.ts) is given. */
export interface ConfirmProvider {
  name: string;
  scriptUrl: string;
  mount: Readonly<Record<string, string>>;
}

export interface PayPageHtml {
  nonce: string;
  /** The page's own path, `/pay/{token}`, which its logo and PDF follow. */
  base: string;
  seller: string;
  hasLogo: boolean;
  invoiceNumber: string;
  invoiceDate: string;
  dueDate: string;
  total: string;
  /** What the page may take now: the amount due less what is already being debited. */
  owed: string;
  /** Whether there is anything to take now (`owed` above zero). */
  owesNow: boolean;
  /** What the invoice still owes, pending debits included: they are not paid until the bank pays them. */
  amountDue: string;
  /** Each pending debit in words with its amount: "To be debited on 25 Jan 2027 from account ending 0001: …". */
  pendingDebits: string[];
  /** Set when the invoice owes nothing: the date of its last payment, or '' when credit paid it. */
  paidOn: string | null;
  /**
   * "Confirm payment" with the stored card: its name as a person reads it, the session's HashToken, and the
   * provider whose script finishes it in the page (absent: the test gateway's challenge, shown by the page).
   */
  confirm: { card: string; hashToken: string; provider?: ConfirmProvider } | null;
  /** "Pay with another card": the capture widget's markup. */
  widget: string | null;
  /**
   * What paying it starts, for the first invoice of a subscription that starts when paid (docs/subscriptions.md):
   * "Paying this invoice starts your subscription to …"; null for any other invoice.
   */
  startsWhenPaid?: string | null;
}

const STYLE = `
  :root { color-scheme: light; font: 16px/1.5 system-ui, sans-serif; color: #1a1a1a; background: #f4f5f7; }
  body { margin: 0; }
  main { max-width: 560px; margin: 32px auto; padding: 24px; background: #fff; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.15); }
  header { display: flex; align-items: center; gap: 12px; margin: 0 0 16px; }
  header img { max-height: 48px; max-width: 160px; }
  .seller { font-weight: 600; font-size: 18px; margin: 0; }
  h1 { font-size: 24px; margin: 0 0 12px; }
  h2 { font-size: 18px; margin: 24px 0 8px; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 16px; margin: 0 0 12px; }
  dt { color: #4a4a4a; }
  dd { margin: 0; text-align: right; }
  dd.owed { font-weight: 700; font-size: 20px; }
  .paid { padding: 12px; border-radius: 6px; background: #e6f4ea; color: #0d5323; font-weight: 600; }
  .pending { padding: 12px; border-radius: 6px; background: #fef7e0; color: #5c3c00; }
  button { font: inherit; padding: 10px 18px; border-radius: 6px; border: 0; background: #0b5394; color: #fff; cursor: pointer; }
  button:disabled { opacity: .6; cursor: default; }
  button.secondary { background: #fff; color: #0b5394; border: 2px solid #0b5394; }
  button:focus-visible { outline: 3px solid #1a1a1a; outline-offset: 2px; }
  #challenge { border: 2px solid #0b5394; border-radius: 6px; padding: 12px; margin: 12px 0; }
  #challenge .bank { font-size: 14px; font-weight: 600; text-transform: uppercase; letter-spacing: .05em; color: #4a4a4a; margin: 0; }
  .actions { display: flex; gap: 12px; flex-wrap: wrap; }
  #status { min-height: 1.5em; margin: 12px 0 0; }
  #status.error { color: #a50e0e; font-weight: 600; }
  a { color: #0b5394; }
  iframe { width: 100%; border: 0; }
`;

/** The page's script: "Confirm payment" with the challenge it may bring, and the frame's sale, each completed. */
const SCRIPT = `
(function () {
  var base = location.pathname.replace(/\\/+$/, '');
  var status = document.getElementById('status');
  function say(text, isError) { status.textContent = text; status.className = isError ? 'error' : ''; }
  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit' })
      .then(function (response) { return response.json().catch(function () { return {}; }).then(function (b) { return { status: response.status, body: b }; }); });
  }
  function complete(session, way) {
    say('Recording your payment…');
    return post(base + '/complete', { session: session, way: way }).then(function (answer) {
      if (answer.status === 200 && answer.body.paid) { location.reload(); return; }
      say(answer.body.detail || 'The payment could not be recorded yet: reload this page in a moment.', true);
    });
  }
  var confirmSection = document.getElementById('confirm');
  if (confirmSection) {
    var session = confirmSection.getAttribute('data-session');
    var button = document.getElementById('confirm-button');
    var panel = document.getElementById('challenge');
    var challengeId = '';
    var answers = panel ? Array.prototype.slice.call(panel.querySelectorAll('button')) : [];
    // A provider's script finishes the confirmation (Stripe.js's handleNextAction, Paystack's window); the server
    // then asks the provider how it went, whatever the script said.
    function finishWithProvider(action) {
      var adapter = window.billingHostedFields;
      var mount = JSON.parse(confirmSection.getAttribute('data-provider-mount') || '{}');
      say(action.accessCode ? 'Pay in the payment window that opens.' : 'Your bank asks you to confirm this payment.');
      var finished = adapter && adapter.nextAction
        ? adapter.nextAction(mount, action)
        : Promise.resolve({ ok: false, message: 'The payment provider could not be reached: reload this page.' });
      finished.then(function (result) {
        say('Recording your payment…');
        return post(base + '/complete', { session: session, way: 'confirm' }).then(function (answer) {
          if (answer.status === 200 && answer.body.paid) { location.reload(); return; }
          if (answer.status === 422) say('Your bank did not confirm the payment. Nothing was charged: try again, or pay with another card.', true);
          else say((!result.ok && result.message) || answer.body.detail || 'The payment did not go through.', true);
          button.disabled = false;
        });
      });
    }
    button.addEventListener('click', function () {
      button.disabled = true;
      say('Asking your bank…');
      post(base + '/confirm', { session: session }).then(function (answer) {
        if (answer.status === 200 && answer.body.action) {
          finishWithProvider(answer.body.action);
        } else if (answer.status === 200 && answer.body.challenge) {
          challengeId = answer.body.challenge.id;
          panel.hidden = false;
          answers.forEach(function (b) { b.disabled = false; });
          say('Your bank asks you to confirm this payment.');
          panel.focus();
        } else if (answer.status === 200) {
          complete(session, 'confirm');
        } else {
          say(answer.body.detail || 'The payment did not go through.', true);
          button.disabled = false;
        }
      });
    });
    answers.forEach(function (answerButton) {
      answerButton.addEventListener('click', function () {
        answers.forEach(function (b) { b.disabled = true; });
        var outcome = answerButton.getAttribute('data-outcome');
        post('/widget/capture/' + session + '/challenge', { challengeId: challengeId, outcome: outcome }).then(function (answer) {
          panel.hidden = true;
          if (answer.status === 200) { complete(session, 'confirm'); return; }
          say(outcome === 'fail' ? 'Your bank did not confirm the payment. Nothing was charged.' : (answer.body.detail || 'The payment did not go through.'), true);
          button.disabled = false;
        });
      });
    });
  }
  var container = document.querySelector('[data-billing-capture]');
  if (container) {
    container.addEventListener('billing:capture.completed', function () {
      complete(container.getAttribute('data-hash-token'), 'card');
    });
  }
})();
`;

function facts(view: PayPageHtml): string {
  const rows: [string, string, string?][] = [
    ['Invoice date', view.invoiceDate],
    ['Due date', view.dueDate],
    ['Total', view.total],
    ['Amount due', view.amountDue, 'owed'],
    ...view.pendingDebits.map((words): [string, string] => ['Pending debit', words]),
  ];
  return `<dl>${rows
    .map(
      ([term, value, cls]) => `<dt>${term}</dt><dd${cls ? ` class="${cls}"` : ''}>${escapeHtml(value)}</dd>`,
    )
    .join('')}</dl>`;
}

function confirmSection(view: PayPageHtml): string {
  if (!view.confirm) return '';
  const provider = view.confirm.provider;
  return (
    `<section id="confirm" aria-labelledby="confirm-title" data-session="${escapeHtml(view.confirm.hashToken)}"` +
    (provider ? ` data-provider-mount="${escapeHtml(JSON.stringify(provider.mount))}"` : '') +
    `><h2 id="confirm-title">Your bank asks you to confirm this payment</h2>` +
    `<p>We tried to charge ${escapeHtml(view.owed)} to your ${escapeHtml(view.confirm.card)}, and your bank wants you ` +
    `to confirm it. Confirm it here and the invoice is paid.</p>` +
    `<button type="button" id="confirm-button">Confirm payment</button>` +
    (provider ? '' : testChallenge(view)) +
    `</section>`
  );
}

/** The test gateway's simulated challenge, shown by the page itself (docs/hosted-pages.md, "3-D Secure"). */
function testChallenge(view: PayPageHtml): string {
  if (!view.confirm) return '';
  return (
    `<section id="challenge" hidden tabindex="-1" aria-labelledby="challenge-title">` +
    `<p class="bank">Test bank</p><h2 id="challenge-title">Confirm this payment</h2>` +
    `<p>Your bank asks you to confirm the payment of ${escapeHtml(view.owed)} with your ` +
    `${escapeHtml(view.confirm.card)}. This is the test gateway's simulated 3-D Secure check.</p>` +
    `<div class="actions"><button type="button" data-outcome="approve">Approve</button>` +
    `<button type="button" class="secondary" data-outcome="fail">Fail</button></div></section>`
  );
}

/** The provider's script and the capture frame's adapter to it, for "Confirm payment" with a provider. */
function providerScripts(view: PayPageHtml): string {
  const provider = view.confirm?.provider;
  const adapter = provider && hostedFieldsAdapter(provider.name);
  if (!provider || !adapter) return '';
  return (
    `<script nonce="${view.nonce}" src="${escapeHtml(provider.scriptUrl)}"></script>` +
    `<script nonce="${view.nonce}">${adapter}</script>`
  );
}

/**
 * What a pending debit leaves to pay here (docs/hosted-pages.md, "Paying one invoice"): nothing when it covers the
 * amount due, which the bank is to take; else only the rest. The page never offers to pay what is being debited:
 * paying it as well would take the money twice, and the debit cannot be called back from here.
 */
function pendingWords(view: PayPageHtml): string {
  return !view.owesNow
    ? `Nothing to pay here: the amount due will be debited as shown above. Paying it now as well would pay it twice.`
    : `Part of the amount due will be debited as shown above; paying here pays the rest, ${escapeHtml(view.owed)}.`;
}

/** The page of an invoice: what it owes, and the ways to pay it (or that it is paid). */
export function payPageDocument(view: PayPageHtml): string {
  const title = `Invoice ${view.invoiceNumber}`;
  let body: string;
  if (view.paidOn !== null) {
    body = `<p class="paid" role="status">${view.paidOn ? `Paid on ${escapeHtml(view.paidOn)}` : 'Paid'}. Thank you: there is nothing more to do.</p>`;
  } else if (!view.owesNow) {
    body = `<p class="pending" role="status">${pendingWords(view)}</p>`;
  } else {
    body =
      (view.pendingDebits.length > 0 ? `<p class="pending">${pendingWords(view)}</p>` : '') +
      confirmSection(view) +
      (view.widget
        ? `<section aria-labelledby="card-title"><h2 id="card-title">Pay with ${view.confirm ? 'another' : 'a'} card</h2>${view.widget}</section>`
        : '') +
      (view.confirm || view.widget
        ? ''
        : '<p>This invoice cannot be paid online: pay it as the invoice says.</p>');
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)} · ${escapeHtml(view.seller)}</title>
<style nonce="${view.nonce}">${STYLE}</style></head>
<body><main>
<header>${view.hasLogo ? `<img src="${escapeHtml(view.base)}/logo" alt="">` : ''}<p class="seller">${escapeHtml(view.seller)}</p></header>
<h1>${escapeHtml(title)}</h1>
${facts(view)}
${view.startsWhenPaid && view.paidOn === null ? `<p class="starts">${escapeHtml(view.startsWhenPaid)}</p>` : ''}
<p><a href="${escapeHtml(view.base)}/invoice.pdf" download>Download the invoice (PDF)</a></p>
${body}
<p id="status" role="status" aria-live="polite"></p>
</main>
${providerScripts(view)}<script nonce="${view.nonce}">${SCRIPT}</script>
</body></html>`;
}

export const NOT_FOUND_DOCUMENT =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page not found</title></head>' +
  '<body><main><h1>This payment page does not exist</h1><p>The link may have expired or been mistyped. Ask the ' +
  'business that sent it for a new one.</p></main></body></html>';
