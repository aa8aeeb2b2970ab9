import type { Route } from 'playwright-core';
import type { PaystackSimulator } from '../paystackSimulator.ts';
import { STAND_IN_DOM_HELPERS } from './domHelpers.ts';

/**
 * A stand-in for Paystack's InlineJS (https://js.paystack.co/v2/inline.js), served to the browser by the test's
 * Playwright route, since the real script cannot be loaded without the internet. It offers what the capture frame's
 * adapter calls (src/modules/widgets/hostedFieldsScripts.ts), as Paystack's InlineJS reference describes it:
 * `new PaystackPop().resumeTransaction(accessCode, { onSuccess, onCancel, onError })` opens Paystack's checkout on
 * the transaction the server initialised; `onSuccess(transaction)` once it is paid, `onCancel()` when the customer
 * closes it. A declined card is told in the checkout, which stays open for another card, as Paystack's does.
 *
 * Paystack's checkout is a page of checkout.paystack.com in an iframe over the page, talking to Paystack in ways
 * Paystack does not document; the stand-in renders its card fields (and the OTP step some test cards ask for,
 * docs/gateways/paystack.md, "Test mode and test cards") in an overlay in our frame, and posts them to
 * `PAYSTACK_CHECKOUT`, which the test's route hands to the simulator's checkout (PaystackSimulator.payWithCard,
 * submitOtp).
 */

export const PAYSTACK_INLINE_URL = 'https://js.paystack.co/v2/inline.js';

/** Where the stand-in checkout posts a step: `{accessCode}/card` or `{accessCode}/otp`. */
export const PAYSTACK_CHECKOUT = 'https://checkout.paystack.com/stand-in/';

export const PAYSTACK_INLINE_STAND_IN = `(function () {
  'use strict';
  var CHECKOUT = '${PAYSTACK_CHECKOUT}';
${STAND_IN_DOM_HELPERS}

  function PaystackPop() {}
  PaystackPop.prototype.resumeTransaction = function (accessCode, callbacks) {
    var overlay = node('section', { id: 'paystack-checkout', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'paystack-title' });
    overlay.style.cssText = 'position:fixed;inset:0;background:#fff;padding:12px;overflow:auto';
    overlay.appendChild(node('h2', { id: 'paystack-title' }, 'Pay with Paystack'));
    var number = field('paystack-card-number', 'Card number', { inputmode: 'numeric', autocomplete: 'cc-number' });
    var expiry = field('paystack-card-expiry', 'Card expiry', { autocomplete: 'cc-exp', placeholder: 'MM / YY' });
    var cvv = field('paystack-card-cvv', 'CVV', { inputmode: 'numeric', autocomplete: 'cc-csc' });
    var otp = field('paystack-otp', 'OTP', { inputmode: 'numeric', autocomplete: 'one-time-code' });
    otp.wrap.hidden = true;
    [number, expiry, cvv, otp].forEach(function (f) { overlay.appendChild(f.wrap); });
    var message = node('p', { role: 'alert', id: 'paystack-message' });
    overlay.appendChild(message);
    var pay = node('button', { type: 'button' }, 'Pay');
    var cancel = node('button', { type: 'button', class: 'secondary' }, 'Cancel');
    overlay.appendChild(pay);
    overlay.appendChild(cancel);
    document.body.appendChild(overlay);
    number.input.focus();
    var step = 'card';

    function post(path, payload) {
      return fetch(CHECKOUT + encodeURIComponent(accessCode) + '/' + path, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload), credentials: 'omit'
      }).then(function (res) { return res.json(); });
    }
    function close() { overlay.remove(); }
    function answered(answer) {
      pay.disabled = false;
      if (answer.status === 'success') {
        close();
        callbacks.onSuccess({ reference: answer.reference, trxref: answer.reference, status: 'success', message: 'Approved', trans: String(answer.id) });
      } else if (answer.status === 'send_otp') {
        step = 'otp';
        [number, expiry, cvv].forEach(function (f) { f.wrap.hidden = true; });
        otp.wrap.hidden = false;
        message.textContent = answer.message;
        otp.input.focus();
      } else {
        step = 'card';
        [number, expiry, cvv].forEach(function (f) { f.wrap.hidden = false; });
        otp.wrap.hidden = true;
        message.textContent = answer.message;
      }
    }
    pay.addEventListener('click', function () {
      pay.disabled = true;
      var sent;
      if (step === 'otp') {
        sent = post('otp', { otp: otp.input.value });
      } else {
        var parts = expiry.input.value.split('/');
        sent = post('card', {
          number: digits(number.input.value),
          expiry_month: Number(parts[0]),
          expiry_year: 2000 + Number(parts[1]),
          cvv: digits(cvv.input.value)
        });
      }
      sent.then(answered, function (error) {
        close();
        if (callbacks.onError) callbacks.onError({ message: 'Paystack could not be reached: ' + error.message });
      });
    });
    cancel.addEventListener('click', function () { close(); callbacks.onCancel(); });
  };
  window.PaystackPop = PaystackPop;
})();
`;

/** The stand-in checkout's steps, each answered by the simulator's checkout (a card, or the OTP it asked for). */
export const answerCheckout =
  (sim: PaystackSimulator) =>
  async (route: Route): Promise<void> => {
    const request = route.request();
    const [accessCode, step] = request.url().slice(PAYSTACK_CHECKOUT.length).split('/');
    const body = request.postDataJSON() as {
      otp: string;
      number: string;
      expiry_month: number;
      expiry_year: number;
    };
    const answer = sim.checkout(
      decodeURIComponent(accessCode!),
      step === 'otp'
        ? { otp: body.otp }
        : { card: { number: body.number, expiryMonth: body.expiry_month, expiryYear: body.expiry_year } },
    );
    await route.fulfill({ json: answer, headers: { 'access-control-allow-origin': '*' } });
  };
