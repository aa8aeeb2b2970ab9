import { escapeHtml } from '../../core/htmlText.ts';
import crypto from 'node:crypto';
import { FAVICON_LINK } from '../../http/favicon.ts';
import type { HostedFields } from '../gateways/index.ts';
import type { BankRail } from './captureSession.ts';
import { hostedFieldsAdapter } from './hostedFieldsScripts.ts';

/**
 * What the browser runs (docs/design/hosted-pages.md, "Capture widget"): the loader a merchant's page includes,
 * the markup create answers as Html, and the frame document. No third-party script, no inline handler, no eval:
 * the frame runs under a nonce-based CSP, the loader under the integrity hash published with it.
 */

/** The message envelope's namespace and version, in the loader and the frame alike. */
const NS = 'billing-widget';

/**
 * The loader, `/widget/v1/capture.js`. Versioned and immutable: a change is a new path (`/widget/v2/…`), since
 * pages pin this one by its integrity hash. It mounts a frame in each `[data-billing-capture]` container, passes
 * on the frame's messages as DOM events on the container (`billing:capture.completed`, …) after checking origin,
 * source, envelope and widgetId, and offers `BillingCapture.submit(container)`.
 */
export const LOADER_SOURCE = `(function () {
  'use strict';
  var NS = '${NS}';
  var script = document.currentScript;
  if (!script) return;
  // Another session's Html on the same page loads the loader again: the first one mounts the new container.
  if (window.BillingCapture) {
    window.BillingCapture.mountAll();
    return;
  }
  var origin = new URL(script.src).origin;
  var senders = new WeakMap();
  function randomId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }
  function mount(container) {
    if (!container || senders.has(container)) return;
    var token = container.getAttribute('data-hash-token') || '';
    if (!/^[0-9a-f]{64}$/.test(token)) return;
    var widgetId = randomId();
    var frame = document.createElement('iframe');
    frame.src = origin + '/widget/capture/' + token + '#' + widgetId;
    frame.title = 'Payment details';
    frame.referrerPolicy = 'no-referrer';
    frame.style.cssText = 'display:block;width:100%;height:380px;border:0;background:#fff';
    function send(type, data) {
      if (frame.contentWindow) {
        frame.contentWindow.postMessage({ ns: NS, v: 1, widgetId: widgetId, type: type, data: data || {} }, origin);
      }
    }
    senders.set(container, send);
    window.addEventListener('message', function (event) {
      if (event.origin !== origin || event.source !== frame.contentWindow) return;
      var m = event.data;
      if (!m || m.ns !== NS || m.v !== 1 || m.widgetId !== widgetId || typeof m.type !== 'string') return;
      if (m.type === 'widget.resize' && m.data && typeof m.data.height === 'number') {
        frame.style.height = Math.min(Math.max(Math.ceil(m.data.height), 80), 2000) + 'px';
      }
      container.dispatchEvent(new CustomEvent('billing:' + m.type, { detail: m.data || {} }));
    });
    container.appendChild(frame);
  }
  function mountAll() {
    var containers = document.querySelectorAll('[data-billing-capture]');
    for (var i = 0; i < containers.length; i += 1) mount(containers[i]);
  }
  window.BillingCapture = {
    mount: mount,
    mountAll: mountAll,
    submit: function (container) {
      var send = senders.get(container);
      if (send) send('capture.submit', {});
    },
    configure: function (container, options) {
      var send = senders.get(container);
      if (send) send('widget.configure', options || {});
    }
  };
  mountAll();
})();
`;

/** The loader's subresource-integrity value, as create's Html and docs/hosted-pages.md publish it. */
export const LOADER_INTEGRITY = `sha384-${crypto.createHash('sha384').update(LOADER_SOURCE).digest('base64')}`;

export const LOADER_PATH = '/widget/v1/capture.js';

/**
 * The Html of a session: its container and the loader with its integrity hash. `serviceOrigin` is where the
 * browser reaches this service; the HashToken is hex, so nothing in it needs escaping.
 */
export function captureHtml(serviceOrigin: string, sessionId: number, hashToken: string): string {
  return (
    `<div id="billing-capture-${sessionId}" data-billing-capture data-hash-token="${hashToken}"></div>\n` +
    `<script src="${escapeHtml(serviceOrigin)}${LOADER_PATH}" integrity="${LOADER_INTEGRITY}" ` +
    `crossorigin="anonymous"></script>`
  );
}

const FRAME_STYLE = `
  :root { color-scheme: light; font: 16px/1.4 system-ui, sans-serif; color: #1a1a1a; background: #fff; }
  body { margin: 0; padding: 12px; background: #fff; }
  body.dark { color: #f2f2f2; background: #1e1e1e; }
  .field { margin: 0 0 12px; }
  label { display: block; font-weight: 600; margin: 0 0 4px; }
  fieldset { border: 0; margin: 0 0 12px; padding: 0; }
  legend { font-weight: 600; padding: 0; margin: 0 0 4px; }
  label.choice { display: inline-block; font-weight: normal; margin-right: 16px; }
  label.choice input { width: auto; }
  select { box-sizing: border-box; width: 100%; padding: 8px; font: inherit; border: 1px solid #6b6b6b; border-radius: 4px; background: #fff; }
  input { box-sizing: border-box; width: 100%; padding: 8px; font: inherit; border: 1px solid #6b6b6b; border-radius: 4px; }
  input[aria-invalid="true"] { border-color: #b00020; }
  .row { display: flex; gap: 12px; }
  .row .field { flex: 1; }
  .error { color: #b00020; margin: 4px 0 0; min-height: 0; font-size: 14px; }
  .error:empty { display: none; }
  button { font: inherit; font-weight: 600; padding: 10px 16px; border: 0; border-radius: 4px; background: #0b5394; color: #fff; cursor: pointer; }
  button:disabled { background: #6b6b6b; cursor: default; }
  .summary { margin: 0 0 12px; }
  #status { margin: 8px 0 0; }
  #challenge { border: 2px solid #0b5394; border-radius: 6px; padding: 12px; margin: 0 0 12px; background: #fff; color: #1a1a1a; }
  #challenge:focus { outline: 3px solid #1a1a1a; outline-offset: 2px; }
  #challenge h2 { font-size: 18px; margin: 0 0 8px; }
  #challenge .bank { font-size: 14px; font-weight: 600; text-transform: uppercase; letter-spacing: 0.05em; margin: 0 0 4px; color: #4a4a4a; }
  #challenge .actions { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0 0; }
  button.secondary { background: #fff; color: #0b5394; border: 2px solid #0b5394; }
  button:focus-visible { outline: 3px solid #1a1a1a; outline-offset: 2px; }
  input:focus-visible, select:focus-visible { outline: 3px solid #0b5394; outline-offset: 1px; }
`;

/** The frame's script: messages only to the AuthDomain's origin, and only from the parent with the widgetId. */
const FRAME_SCRIPT = `(function () {
  'use strict';
  var NS = '${NS}';
  var body = document.body;
  var parentOrigin = body.getAttribute('data-parent-origin');
  var token = body.getAttribute('data-token');
  var state = body.getAttribute('data-state');
  // A provider's hosted fields (src/modules/widgets/hostedFieldsScripts.ts) instead of our card fields.
  var provider = body.getAttribute('data-provider');
  var widgetId = location.hash.slice(1);
  if (!/^[0-9a-f]{32}$/.test(widgetId)) widgetId = '';
  function send(type, data) {
    if (window.parent === window || !widgetId) return;
    window.parent.postMessage({ ns: NS, v: 1, widgetId: widgetId, type: type, data: data || {} }, parentOrigin);
  }
  // The body's own height, not the document's: the document is never shorter than the frame's viewport, so the
  // frame could grow but never shrink (after a capture, its form gone).
  function resize() { send('widget.resize', { height: Math.ceil(body.getBoundingClientRect().height) }); }
  // The frame is resized before the page hears of a change, so that the page's handler sees the frame whole.
  function tell(type, data) { resize(); send(type, data); }
  var form = document.getElementById('card-form');
  var status = document.getElementById('status');
  var cardGroup = document.getElementById('card-fields');
  var bankGroup = document.getElementById('bank-fields');
  var cardNames = provider ? (document.getElementById('email') ? ['email'] : []) : ['number', 'expiry', 'securityCode', 'name'];
  var bankNames = bankGroup ? bankGroup.getAttribute('data-fields').split(',') : [];
  var busy = false;
  var challengePanel = document.getElementById('challenge');
  var challengeButtons = challengePanel ? Array.prototype.slice.call(challengePanel.querySelectorAll('button')) : [];
  var challengeId = '';
  function input(name) { return document.getElementById(name); }
  function kind() {
    var checked = document.querySelector('input[name="kind"]:checked');
    return checked ? checked.value : 'card';
  }
  function names() { return kind() === 'bank_account' ? bankNames : cardNames; }
  function showErrors(fields) {
    cardNames.concat(bankNames).forEach(function (name) {
      input(name).removeAttribute('aria-invalid');
      document.getElementById(name + '-error').textContent = '';
    });
    fields.forEach(function (problem) {
      if (!input(problem.field) || !document.getElementById(problem.field + '-error')) return;
      input(problem.field).setAttribute('aria-invalid', 'true');
      document.getElementById(problem.field + '-error').textContent = problem.message;
    });
  }
  function close(message) {
    if (form) form.hidden = true;
    status.textContent = message;
  }
  function showKind() {
    var bank = kind() === 'bank_account';
    cardGroup.hidden = bank;
    if (bankGroup) bankGroup.hidden = !bank;
    var button = form.querySelector('button');
    if (!button.hasAttribute('data-fixed')) button.textContent = bank ? 'Save bank account' : 'Save card';
    showErrors([]);
    resize();
  }
  function submit() {
    if (busy || !form || form.hidden) return;
    var missing = [];
    names().forEach(function (name) {
      if (!input(name).value.trim() && !input(name).hasAttribute('data-optional')) missing.push({ field: name, message: 'Enter the ' + input(name).getAttribute('data-name') });
    });
    showErrors(missing);
    if (missing.length) {
      // Announced once by the status line; each field then reads its own error (aria-describedby).
      status.textContent = 'Fill in the ' + (missing.length === 1 ? 'field' : missing.length + ' fields') + ' marked.';
      input(missing[0].field).focus();
      tell('capture.failed', { reason: 'incomplete' });
      return;
    }
    // A typo costs no attempt: the number and expiry are checked here as the server checks them
    // (src/modules/widgets/capture.service.ts), and a form that would be refused is not sent.
    var invalid = !provider && kind() === 'card' ? cardProblems() : [];
    if (invalid.length) {
      showErrors(invalid);
      status.textContent = 'Check the ' + (invalid.length === 1 ? 'field' : invalid.length + ' fields') + ' marked.';
      input(invalid[0].field).focus();
      tell('capture.failed', { reason: 'invalid' });
      return;
    }
    busy = true;
    form.querySelector('button').disabled = true;
    status.textContent = 'Sending…';
    send('capture.submitting', {});
    if (provider && kind() === 'card') return providerSubmit();
    var card = { kind: kind() };
    names().forEach(function (name) { card[name] = input(name).value; });
    if (card.kind === 'card') input('securityCode').value = '';
    post('/submit', card);
  }
  function luhn(digits) {
    var sum = 0;
    for (var i = 0; i < digits.length; i += 1) {
      var d = Number(digits.charAt(digits.length - 1 - i));
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    return sum % 10 === 0;
  }
  // The card number (12 to 19 digits, spaces or dashes between, Luhn) and the expiry (MM/YY or MM/YYYY, month 1
  // to 12, not before this month by the browser's clock); the server checks them again, and the rest.
  function cardProblems() {
    var problems = [];
    var digits = input('number').value.replace(/[\\s-]/g, '');
    if (!/^\\d{12,19}$/.test(digits) || !luhn(digits)) {
      problems.push({ field: 'number', message: 'Enter a valid card number' });
    }
    var expiry = /^\\s*(\\d{1,2})\\s*\\/\\s*(\\d{2}|\\d{4})\\s*$/.exec(input('expiry').value);
    var now = new Date();
    if (!expiry) {
      problems.push({ field: 'expiry', message: 'Enter the expiry as MM/YY' });
    } else {
      var month = Number(expiry[1]);
      var year = expiry[2].length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2]);
      if (month < 1 || month > 12) {
        problems.push({ field: 'expiry', message: 'The month must be 01 to 12' });
      } else if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1)) {
        problems.push({ field: 'expiry', message: 'The card has expired' });
      }
    }
    return problems;
  }
  function request(path, payload) {
    return fetch('/widget/capture/' + token + path, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload),
      credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer'
    }).then(function (res) {
      return res.json().then(function (json) { return { status: res.status, body: json }; });
    });
  }
  function connectionFailed() {
    settle();
    status.textContent = 'The connection failed. Try again.';
    tell('capture.failed', { reason: 'network' });
    resize();
  }
  function post(path, payload) { request(path, payload).then(handle, connectionFailed); }
  function providerFailed(message) {
    settle();
    status.textContent = message || 'The card was not confirmed. Try again.';
    tell('capture.failed', { reason: 'provider' });
    resize();
  }
  // The provider's fields are checked, the setup started on our server, confirmed in the browser by the
  // provider's script (its 3-D Secure included), then our server asks the provider how it went.
  function providerSubmit() {
    var adapter = window.billingHostedFields;
    adapter.prepare().then(function (prepared) {
      if (!prepared.ok) return providerFailed(prepared.message);
      var email = input('email');
      return request('/provider/start', email ? { email: email.value } : {}).then(function (answer) {
        if (answer.status !== 200) return handle(answer);
        return adapter.confirm(answer.body.confirm).then(function (confirmed) {
          if (confirmed.ok) return request('/provider/complete', {}).then(handle);
          // Refused in the provider's fields: our server asks the provider too, so that a declined card counts
          // as a failed attempt here as in our own fields (a card tester gets no more tries), and the next
          // submit starts a new setup. Not finished (the window closed): nothing counts.
          return request('/provider/complete', {}).then(function (completed) {
            var left = completed.body && completed.body.attemptsLeft;
            if (completed.status === 409) return providerFailed(confirmed.message);
            handle(completed);
            if (completed.status === 422 && left > 0) {
              status.textContent = (confirmed.message || 'The card was declined.') + ' (' + left + ' attempts left)';
            }
          });
        });
      });
    }).then(null, connectionFailed);
  }
  function settle() {
    busy = false;
    form.querySelector('button').disabled = false;
    challengeButtons.forEach(function (button) { button.disabled = false; });
  }
  function showChallenge(challenge) {
    challengeId = challenge.id;
    form.hidden = true;
    document.getElementById('challenge-card').textContent = challenge.cardType + ' ending in ' + challenge.lastFour;
    challengePanel.hidden = false;
    status.textContent = 'Your bank asks you to confirm this payment.';
    challengePanel.focus();
  }
  function hideChallenge() {
    challengeId = '';
    if (challengePanel) challengePanel.hidden = true;
  }
  function answerChallenge(outcome) {
    if (busy || !challengeId) return;
    busy = true;
    challengeButtons.forEach(function (button) { button.disabled = true; });
    status.textContent = 'Sending…';
    post('/challenge', { challengeId: challengeId, outcome: outcome });
  }
  function reopen(fields) {
    hideChallenge();
    form.hidden = false;
    showErrors(fields);
    var first = fields.filter(function (problem) { return input(problem.field); })[0];
    if (first) input(first.field).focus();
  }
  function handle(answer) {
    settle();
    var b = answer.body || {};
    if (answer.status === 200 && b.challenge) {
      showChallenge(b.challenge);
      tell('capture.challenge', {});
    } else if (answer.status === 200 && b.type === 'bank_account') {
      bankNames.forEach(function (name) { if (input(name).tagName === 'INPUT') input(name).value = ''; });
      close('Bank account saved: ' + b.bank + ' ending in ' + b.lastFour + '.');
      tell('capture.completed', { type: 'bank_account', bank: b.bank, last4: b.lastFour, charged: false });
    } else if (answer.status === 200) {
      hideChallenge();
      if (input('number')) input('number').value = '';
      close((b.charged ? 'Payment made: ' : 'Card saved: ') + b.cardType + ' ending in ' + b.lastFour + '.');
      tell('capture.completed', { type: 'card', brand: b.cardType, last4: b.lastFour,
        expiryMonth: b.expiryMonth, expiryYear: b.expiryYear, charged: b.charged });
    } else if (answer.status === 410) {
      hideChallenge();
      close('This form has expired. Reload the page to start again.');
      tell('session.expired', {});
    } else if (b.code === 'capture_session_locked') {
      hideChallenge();
      showErrors(b.fields || []);
      close('Too many attempts. Reload the page to start again.');
      tell('capture.failed', { reason: 'locked', attemptsLeft: 0 });
    } else if (answer.status === 422 && typeof b.attemptsLeft === 'number') {
      reopen(b.fields || []);
      status.textContent = 'Check the details and try again (' + b.attemptsLeft + ' attempts left).';
      tell('capture.failed', { reason: 'refused', attemptsLeft: b.attemptsLeft });
    } else {
      status.textContent = b.detail || 'Something went wrong. Try again.';
      tell('capture.failed', { reason: b.code || 'error' });
    }
    resize();
  }
  window.addEventListener('message', function (event) {
    if (event.origin !== parentOrigin || event.source !== window.parent) return;
    var m = event.data;
    if (!m || m.ns !== NS || m.v !== 1 || m.widgetId !== widgetId) return;
    if (m.type === 'capture.submit') submit();
    if (m.type === 'widget.configure' && m.data && (m.data.theme === 'dark' || m.data.theme === 'light')) {
      body.classList.toggle('dark', m.data.theme === 'dark');
    }
  });
  if (form) {
    form.addEventListener('submit', function (event) { event.preventDefault(); submit(); });
    form.addEventListener('input', function () {
      send('capture.change', { complete: names().every(function (name) { return input(name).value.trim() !== ''; }) });
    });
    Array.prototype.forEach.call(document.querySelectorAll('input[name="kind"]'), function (radio) {
      radio.addEventListener('change', showKind);
    });
    challengeButtons.forEach(function (button) {
      button.addEventListener('click', function () { answerChallenge(button.getAttribute('data-outcome')); });
    });
  }
  if (provider && form) {
    if (window.billingHostedFields && (window.Stripe || window.PaystackPop)) {
      window.billingHostedFields.mount(document.getElementById('provider-fields'), JSON.parse(body.getAttribute('data-mount')));
    } else {
      close('The payment form could not load. Check your connection and reload the page.');
    }
  }
  // The frame follows its own height whatever changes it: a provider's script (its fields sized once loaded, its
  // 3-D Secure page, its checkout; docs/hosted-pages.md, "With a real provider"), text rewrapped when the page
  // narrows the frame, or a first measure taken before the frame was laid out.
  if (window.ResizeObserver) new window.ResizeObserver(resize).observe(body);
  if (state === 'expired') tell('session.expired', {});
  tell('widget.ready', {});
  resize();
})();
`;

export interface FrameView {
  nonce: string;
  hashToken: string;
  parentOrigin: string;
  state: 'open' | 'captured' | 'completed' | 'locked' | 'expired';
  description: string | null;
  /** `30.00 USD` when the session sells. */
  amountText: string | null;
  /** The bank rail offered beside cards, if any. */
  bankRail: BankRail | null;
  /** A provider's hosted fields instead of our card fields, and whether the frame asks the payer's e-mail. */
  hostedFields: (HostedFields & { askEmail: boolean }) | null;
}

const field = (id: string, label: string, attrs: string) =>
  `<div class="field"><label for="${id}">${label}</label>` +
  `<input id="${id}" name="${id}" ${attrs} data-name="${label.toLowerCase()}" aria-describedby="${id}-error">` +
  `<p id="${id}-error" class="error"></p></div>`;

const select = (id: string, label: string, options: readonly string[]) =>
  `<div class="field"><label for="${id}">${label}</label>` +
  `<select id="${id}" name="${id}" data-name="${label.toLowerCase()}" aria-describedby="${id}-error">` +
  options.map((option) => `<option>${option}</option>`).join('') +
  `</select><p id="${id}-error" class="error"></p></div>`;

/** The bank fields of each rail: what an add of that method needs (docs/gateways.md, "Bank-account validation"). */
const BANK_RAIL_FIELDS: Record<BankRail, { fields: string[]; markup: string }> = {
  // The debtor's ID number, which the bank may be asked to match (docs/gateways/netcash.md, "Account verification"):
  // optional, as in the API.
  debit_order: {
    fields: ['accountHolder', 'bank', 'accountNumber', 'branchCode', 'accountType', 'idType', 'idNumber'],
    markup:
      field('accountNumber', 'Account number', 'inputmode="numeric" maxlength="40"') +
      field('branchCode', 'Branch code', 'maxlength="40"') +
      select('accountType', 'Account type', ['Cheque', 'Savings', 'Transmission']) +
      select('idType', 'Identity document', ['South-African ID', 'Passport']) +
      field(
        'idNumber',
        'ID or passport number (optional)',
        'maxlength="40" autocomplete="off" data-optional',
      ),
  },
  ach: {
    fields: ['accountHolder', 'bank', 'accountNumber', 'routingNumber', 'accountType'],
    markup:
      field('accountNumber', 'Account number', 'inputmode="numeric" maxlength="40"') +
      field('routingNumber', 'Routing number', 'inputmode="numeric" maxlength="40"') +
      select('accountType', 'Account type', ['Checking', 'Savings']),
  },
  sepa: {
    fields: ['accountHolder', 'bank', 'iban', 'bic', 'accountType'],
    markup:
      field('iban', 'IBAN', 'maxlength="60"') +
      field('bic', 'BIC', 'maxlength="20"') +
      select('accountType', 'Account type', ['Current', 'Savings']),
  },
};

function bankChoice(rail: BankRail): { choice: string; group: string } {
  const { fields, markup } = BANK_RAIL_FIELDS[rail];
  return {
    choice:
      `<fieldset class="kinds"><legend>Pay with</legend>` +
      `<label class="choice"><input type="radio" name="kind" value="card" checked> Card</label>` +
      `<label class="choice"><input type="radio" name="kind" value="bank_account"> Bank account</label>` +
      `</fieldset>`,
    group:
      `<div id="bank-fields" hidden data-fields="${fields.join(',')}">` +
      field('accountHolder', 'Account holder', 'autocomplete="name" maxlength="200"') +
      field('bank', 'Bank', 'maxlength="200"') +
      markup +
      `</div>`,
  };
}

const CLOSED: Record<Exclude<FrameView['state'], 'open'>, string> = {
  captured: 'The card has been saved.',
  completed: 'The card has been saved.',
  locked: 'Too many attempts. Reload the page to start again.',
  expired: 'This form has expired. Reload the page to start again.',
};

/**
 * The simulated 3-D Secure challenge, shown in place of the form when a card's sale needs the cardholder's
 * authentication (docs/design/hosted-pages.md, "3-D Secure in the frame"). A real provider's challenge is its
 * bank's page in a frame of the provider's; this one is labelled a test so nobody mistakes it for a bank.
 */
const challengePanel = (amountText: string | null) =>
  `<section id="challenge" hidden tabindex="-1" aria-labelledby="challenge-title" aria-describedby="challenge-text">` +
  `<p class="bank">Test bank</p>` +
  `<h2 id="challenge-title">Confirm this payment</h2>` +
  `<p id="challenge-text">Your bank asks you to confirm ` +
  (amountText ? `the payment of ${escapeHtml(amountText)}` : 'this payment') +
  ` with <span id="challenge-card">your card</span>. This is the test gateway's simulated 3-D Secure check: ` +
  `no real bank is asked.</p>` +
  `<div class="actions"><button type="button" data-outcome="approve">Approve</button>` +
  `<button type="button" class="secondary" data-outcome="fail">Fail</button></div>` +
  `</section>`;

/** The frame document: labelled fields with per-field errors, or why the session takes no card. */
export function frameDocument(view: FrameView): string {
  const summary = [view.description, view.amountText && `Amount: ${view.amountText}`]
    .filter(Boolean)
    .join(' · ');
  const bank = view.bankRail ? bankChoice(view.bankRail) : { choice: '', group: '' };
  const button = view.amountText
    ? `<button type="submit" data-fixed>Pay ${escapeHtml(view.amountText)}</button>`
    : `<button type="submit">Save card</button>`;
  const hosted = view.hostedFields;
  const cardFields = hosted
    ? (hosted.askEmail
        ? field('email', 'E-mail address', 'type="email" autocomplete="email" maxlength="254"')
        : '') + `<div id="provider-fields"></div>`
    : field('number', 'Card number', 'inputmode="numeric" autocomplete="cc-number" maxlength="23"') +
      `<div class="row">` +
      field('expiry', 'Expiry', 'autocomplete="cc-exp" placeholder="MM/YY" maxlength="7"') +
      field('securityCode', 'Security code', 'inputmode="numeric" autocomplete="cc-csc" maxlength="4"') +
      `</div>` +
      field('name', 'Name on card', 'autocomplete="cc-name" maxlength="100"');
  const adapter = hosted ? hostedFieldsAdapter(hosted.provider) : undefined;
  const providerScripts =
    hosted && adapter
      ? `<script nonce="${view.nonce}" src="${escapeHtml(hosted.scriptUrl)}"></script>` +
        `<script nonce="${view.nonce}">${adapter}</script>`
      : '';
  const providerAttributes = hosted
    ? ` data-provider="${escapeHtml(hosted.provider)}" data-mount="${escapeHtml(JSON.stringify(hosted.mount))}"`
    : '';
  const form =
    view.state === 'open'
      ? `<form id="card-form" novalidate>` +
        (summary ? `<p class="summary">${escapeHtml(summary)}</p>` : '') +
        bank.choice +
        `<div id="card-fields">` +
        cardFields +
        `</div>` +
        bank.group +
        button +
        `</form>` +
        (hosted ? '' : challengePanel(view.amountText))
      : '';
  const closed = view.state === 'open' ? '' : CLOSED[view.state];
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">${FAVICON_LINK}` +
    `<title>Payment details</title><style nonce="${view.nonce}">${FRAME_STYLE}</style></head>` +
    `<body data-parent-origin="${escapeHtml(view.parentOrigin)}" data-token="${escapeHtml(view.hashToken)}" ` +
    `data-state="${view.state}"${providerAttributes}><main>${form}<p id="status" role="status">${closed}</p></main>` +
    `${providerScripts}<script nonce="${view.nonce}">${FRAME_SCRIPT}</script></body></html>`
  );
}

/** The frame's headers (docs/design/hosted-pages.md, "Capture widget"): CSP as a header, never X-Frame-Options. */
export function frameHeaders(
  nonce: string,
  frameAncestors: string,
  providerOrigins: readonly string[] = [],
): Record<string, string> {
  // A provider's hosted fields load its script, frames, images and calls from its own origins, and nothing else.
  const provider = providerOrigins.map((origin) => ` ${origin}`).join('');
  return {
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'${provider}`,
      `style-src 'nonce-${nonce}'`,
      `connect-src 'self'${provider}`,
      ...(provider ? [`frame-src${provider}`] : []),
      // 'self' for the service's icon (src/http/favicon.ts).
      `img-src 'self'${provider}`,
      "form-action 'none'",
      "base-uri 'none'",
      `frame-ancestors ${frameAncestors}`,
    ].join('; '),
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    // For browsers older than frame-ancestors; never beside an allowed origin, which it would override.
    ...(frameAncestors === "'none'" ? { 'x-frame-options': 'DENY' } : {}),
  };
}
