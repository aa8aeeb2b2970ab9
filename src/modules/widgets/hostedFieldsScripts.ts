/**
 * The capture frame's adapters to payment providers' hosted fields (docs/hosted-pages.md, "With a real provider"):
 * each defines `window.billingHostedFields` with `mount(element, mount)` (show the provider's card fields),
 * `prepare()` (check them before anything is started) and `confirm(confirm)` (confirm the setup the service
 * started, in the browser, where the provider runs 3-D Secure itself), each answering `{ ok, message }`. The card
 * number stays inside the provider's script and frames. The pay page's "Confirm payment" uses the same adapter's
 * `nextAction(mount, action)`: what the provider's script does for a payment the service started without card
 * fields (docs/hosted-pages.md, "Paying one invoice").
 */

/**
 * Stripe's Payment Element (Stripe.js "Endive", src/modules/gateways/stripe/stripeCardSetup.ts) with the intent made
 * at submit (Stripe's "deferred intent" flow): mounted with the mode, amount, currency and the card type allowed; `elements.submit()` checks the fields; `confirmSetup`/`confirmPayment` confirm the
 * intent the service made, redirecting only when the card's bank requires it.
 */
const STRIPE = `
  var stripe = null, elements = null;
  function answer(result) { return result && result.error ? { ok: false, message: result.error.message } : { ok: true }; }
  window.billingHostedFields = {
    mount: function (element, m) {
      stripe = window.Stripe(m.publishableKey);
      var options = { mode: m.mode, currency: m.currency, allowedPaymentMethodTypes: m.allowedPaymentMethodTypes.split(',') };
      if (m.mode === 'payment') options.amount = Number(m.amount);
      // Stripe's deferred-intent guide: a sale's card kept for later is set up off session; a setup is by its mode.
      if (m.mode === 'payment' && m.setupFutureUsage) options.setupFutureUsage = m.setupFutureUsage;
      elements = stripe.elements(options);
      elements.create('payment').mount(element);
    },
    prepare: function () { return elements.submit().then(answer); },
    confirm: function (c) {
      var args = { elements: elements, clientSecret: c.clientSecret, redirect: 'if_required' };
      return (c.intent === 'setup' ? stripe.confirmSetup(args) : stripe.confirmPayment(args)).then(answer);
    },
    // Stripe.js reference, "Handle a next action": the bank's challenge on an intent the service confirmed with the
    // stored card (Stripe's "Finalize payments on the server"). It throws for an intent no longer waiting on one.
    nextAction: function (m, a) {
      stripe = stripe || window.Stripe(m.publishableKey);
      return stripe.handleNextAction({ clientSecret: a.clientSecret }).then(answer, function (error) {
        return { ok: false, message: (error && error.message) || 'Stripe could not finish the payment.' };
      });
    }
  };`;

/**
 * Paystack's InlineJS: the card is entered in Paystack's own checkout window, opened on the transaction the service
 * initialised (`resumeTransaction` with its access code); nothing to mount but a line saying so.
 */
const PAYSTACK = `
  window.billingHostedFields = {
    mount: function (element) {
      element.textContent = 'You enter your card in Paystack\\u2019s secure window when you continue.';
    },
    prepare: function () { return Promise.resolve({ ok: true }); },
    confirm: function (c) {
      return new Promise(function (resolve) {
        new window.PaystackPop().resumeTransaction(c.accessCode, {
          onSuccess: function () { resolve({ ok: true }); },
          onCancel: function () { resolve({ ok: false, message: 'The payment window was closed before the card was confirmed.' }); },
          onError: function (error) { resolve({ ok: false, message: (error && error.message) || 'Paystack could not take the card.' }); }
        });
      });
    },
    // Paystack confirms no stored authorization on session: its window takes the payment, asking the bank itself.
    nextAction: function (m, a) { return window.billingHostedFields.confirm(a); }
  };`;

const ADAPTERS: Readonly<Record<string, string>> = { stripe: STRIPE, paystack: PAYSTACK };

/** The adapter of `provider` as a script body, or undefined for a provider the frame has none for. */
export function hostedFieldsAdapter(provider: string): string | undefined {
  const adapter = Object.hasOwn(ADAPTERS, provider) ? ADAPTERS[provider] : undefined;
  return adapter && `(function () {\n  'use strict';${adapter}\n})();`;
}
