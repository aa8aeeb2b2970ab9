import { STAND_IN_DOM_HELPERS } from './domHelpers.ts';

/**
 * A stand-in for Stripe.js ("Endive", https://js.stripe.com/endive/stripe.js), served to the browser by the test's
 * Playwright route, since the real script cannot be loaded without the internet. It offers what the capture frame's
 * adapter calls (src/modules/widgets/hostedFieldsScripts.ts), and behaves as Stripe's documentation says:
 *
 * - `Stripe(publishableKey).elements(options)` (Stripe.js reference, "Create an Elements group", deferred intent
 *   with `mode`, `currency`, `amount`, `allowedPaymentMethodTypes`, `setupFutureUsage`);
 * - `elements.create('payment').mount(element)`: the Payment Element. The real one is an iframe of Stripe's own
 *   origin, which a test cannot serve; the stand-in renders its card number, expiry and security code inputs in the
 *   element itself, in our frame;
 * - `elements.submit()` resolves `{ error }` (a `validation_error`) when a field is incomplete, else `{}`
 *   ("Submit the Elements group");
 * - `stripe.confirmSetup` / `stripe.confirmPayment({ elements, clientSecret, redirect: 'if_required' })`: as Stripe.js
 *   does, the card becomes a PaymentMethod (POST /v1/payment_methods, form-encoded, the publishable key), the
 *   intent is confirmed with it and the client secret (POST /v1/{setup,payment}_intents/{id}/confirm), once the
 *   intent, retrieved with its client secret, is found to match the Elements group as Stripe's deferred-intent
 *   guide requires (mode, amount, currency, setup_future_usage, payment method types); a card error
 *   (HTTP 402) resolves `{ error }` with Stripe's message. An intent that answers `requires_action` shows Stripe's
 *   test 3-D Secure page ("Complete authentication", docs.stripe.com/testing, "3D Secure authentication"), whose
 *   button posts to hooks.stripe.com, then the intent is retrieved again with its client secret and the result
 *   resolved (`{ setupIntent }` / `{ paymentIntent }`, or `{ error }`). The test page's "Fail authentication"
 *   fails it instead (posted to hooks.stripe.com too), and the intent's `last_payment_error` is resolved as `{ error }`;
 * - `stripe.handleNextAction({ clientSecret })` (Stripe.js reference, "Handle a next action"): for an intent the
 *   server confirmed; the intent, retrieved with its client secret, must be `requires_action` (else it throws, as
 *   Stripe.js does), then the same test 3-D Secure page opens over the page (Stripe's modal) and the intent,
 *   retrieved again, is resolved as above.
 */

export const STRIPE_JS_URL = 'https://js.stripe.com/endive/stripe.js';

/** The stand-in's test authentication page posts here; the test's route passes it to the simulator. */
export const STRIPE_AUTHENTICATE =
  /^https:\/\/hooks\.stripe\.com\/3d_secure_2\/test\/authenticate\/([A-Za-z0-9_]+)$/;
/** Where the page's "Fail authentication" posts. */
export const STRIPE_FAIL_AUTHENTICATION =
  /^https:\/\/hooks\.stripe\.com\/3d_secure_2\/test\/fail\/([A-Za-z0-9_]+)$/;

export const STRIPE_JS_STAND_IN = `(function () {
  'use strict';
  var API = 'https://api.stripe.com/v1';
  function encode(params) {
    return Object.keys(params).map(function (k) { return encodeURIComponent(k) + '=' + encodeURIComponent(params[k]); }).join('&');
  }
${STAND_IN_DOM_HELPERS}

  window.Stripe = function (publishableKey) {
    function call(method, path, params) {
      var get = method === 'GET';
      return fetch(API + path + (get ? '?' + encode(params) : ''), {
        method: method,
        headers: get
          ? { authorization: 'Bearer ' + publishableKey }
          : { authorization: 'Bearer ' + publishableKey, 'content-type': 'application/x-www-form-urlencoded' },
        body: get ? undefined : encode(params),
        credentials: 'omit'
      }).then(function (res) {
        return res.json().then(function (body) { return { status: res.status, body: body }; });
      });
    }

    function elements(options) {
      if (!options || (options.mode !== 'setup' && options.mode !== 'payment') || !options.currency) {
        throw new Error('IntegrationError: elements() in the deferred-intent flow needs mode and currency');
      }
      if (options.mode === 'payment' && typeof options.amount !== 'number') {
        throw new Error('IntegrationError: a payment mode Elements group needs an amount');
      }
      var state = { options: options, inputs: null, container: null };
      return {
        create: function (type) {
          if (type !== 'payment') throw new Error('IntegrationError: the stand-in has the Payment Element only');
          return {
            mount: function (container) {
              var number = field('stripe-card-number', 'Card number', { inputmode: 'numeric', autocomplete: 'cc-number' });
              var row = node('div', { class: 'row' });
              var expiry = field('stripe-card-expiry', 'Expiration date', { autocomplete: 'cc-exp', placeholder: 'MM / YY' });
              var cvc = field('stripe-card-cvc', 'Security code', { inputmode: 'numeric', autocomplete: 'cc-csc', placeholder: 'CVC' });
              row.appendChild(expiry.wrap);
              row.appendChild(cvc.wrap);
              var element = node('div', { class: 'StripeElement', 'data-stand-in': 'Stripe Payment Element' });
              element.appendChild(number.wrap);
              element.appendChild(row);
              container.appendChild(element);
              state.container = container;
              state.inputs = { number: number.input, expiry: expiry.input, cvc: cvc.input };
            }
          };
        },
        submit: function () {
          var i = state.inputs;
          var problem = !i ? 'The Payment Element is not mounted.'
            : digits(i.number.value).length < 12 ? 'Your card number is incomplete.'
            : !/^\\s*\\d{1,2}\\s*\\/\\s*\\d{2}\\s*$/.test(i.expiry.value) ? "Your card's expiration date is incomplete."
            : digits(i.cvc.value).length < 3 ? "Your card's security code is incomplete."
            : null;
          return Promise.resolve(problem ? { error: { type: 'validation_error', message: problem } } : {});
        },
        _state: state
      };
    }

    function card(state) {
      var expiry = state.inputs.expiry.value.split('/');
      return {
        type: 'card',
        'card[number]': digits(state.inputs.number.value),
        'card[exp_month]': String(Number(expiry[0])),
        'card[exp_year]': String(2000 + Number(expiry[1])),
        'card[cvc]': digits(state.inputs.cvc.value)
      };
    }

    // Stripe's test 3-D Secure page, where it shows it: "Complete authentication" passes it at Stripe, "Fail
    // authentication" fails it.
    function authenticate(container, intentId) {
      return new Promise(function (resolve) {
        var page = node('section', { id: 'stripe-3ds', 'aria-labelledby': 'stripe-3ds-title' });
        page.appendChild(node('h2', { id: 'stripe-3ds-title' }, '3D Secure 2 Test Page'));
        page.appendChild(node('p', {}, 'A stand-in for Stripe\\u2019s test authentication page.'));
        var complete = node('button', { type: 'button' }, 'Complete authentication');
        var failed = node('button', { type: 'button' }, 'Fail authentication');
        page.appendChild(complete);
        page.appendChild(failed);
        container.appendChild(page);
        [[complete, 'authenticate'], [failed, 'fail']].forEach(function (pair) {
          pair[0].addEventListener('click', function () {
            complete.disabled = true;
            failed.disabled = true;
            fetch('https://hooks.stripe.com/3d_secure_2/test/' + pair[1] + '/' + intentId, { method: 'POST', credentials: 'omit' })
              .then(function () { page.remove(); resolve(); });
          });
        });
      });
    }

    function resultOf(kind, intent) {
      if (intent.status === 'succeeded' || intent.status === 'processing') {
        var answer = {};
        answer[kind === 'setup' ? 'setupIntent' : 'paymentIntent'] = intent;
        return answer;
      }
      var error = intent.last_setup_error || intent.last_payment_error;
      return { error: error || { type: 'invalid_request_error', message: 'The card was not confirmed.' } };
    }

    // Stripe.js reference, "Handle a next action": finishes an intent the server confirmed; it throws for an
    // intent in any status but requires_action.
    function handleNextAction(args) {
      var clientSecret = args && args.clientSecret;
      if (typeof clientSecret !== 'string' || clientSecret.indexOf('_secret_') < 0) {
        return Promise.reject(new Error('IntegrationError: handleNextAction needs the intent\\u2019s clientSecret.'));
      }
      var id = clientSecret.split('_secret_')[0];
      var kind = id.indexOf('seti_') === 0 ? 'setup' : 'payment';
      var path = '/' + kind + '_intents/' + id;
      function retrieve() { return call('GET', path, { client_secret: clientSecret }); }
      return retrieve().then(function (shown) {
        if (shown.status !== 200) return { error: shown.body.error };
        if (shown.body.status !== 'requires_action') {
          throw new Error('IntegrationError: handleNextAction: the ' + kind + ' intent has status ' + shown.body.status + ', not requires_action.');
        }
        return authenticate(document.body, id).then(retrieve).then(function (again) {
          return again.status === 200 ? resultOf(kind, again.body) : { error: again.body.error };
        });
      });
    }

    // Stripe's deferred-intent guide: the intent must match the Elements group (its mode, amount, currency,
    // setup_future_usage and payment method types), or Stripe refuses the confirmation.
    function mismatchOf(kind, options, intent) {
      if (options.mode !== kind) return 'confirm' + (kind === 'setup' ? 'Setup' : 'Payment') + ' needs an Elements group in ' + kind + ' mode, not ' + options.mode + '.';
      var types = (options.allowedPaymentMethodTypes || []).slice().sort().join(',');
      if (types !== intent.payment_method_types.slice().sort().join(',')) return 'The payment method types of the intent (' + intent.payment_method_types + ') do not match the Elements group (' + types + ').';
      if (kind === 'setup') return null;
      if (intent.amount !== options.amount) return 'The amount of the PaymentIntent (' + intent.amount + ') does not match the Elements group (' + options.amount + ').';
      if (intent.currency !== options.currency) return 'The currency of the PaymentIntent (' + intent.currency + ') does not match the Elements group (' + options.currency + ').';
      if ((intent.setup_future_usage || null) !== (options.setupFutureUsage || null)) return 'The setup_future_usage of the PaymentIntent (' + intent.setup_future_usage + ') does not match the Elements group (' + options.setupFutureUsage + ').';
      return null;
    }

    function confirm(kind, args) {
      var state = args.elements._state;
      var clientSecret = args.clientSecret;
      var id = clientSecret.split('_secret_')[0];
      var path = '/' + kind + '_intents/' + id;
      function result(intent) { return resultOf(kind, intent); }
      function retrieve() { return call('GET', path, { client_secret: clientSecret }); }
      function authenticated() {
        return authenticate(state.container, id).then(retrieve).then(function (retrieved) {
          return retrieved.status === 200 ? result(retrieved.body) : { error: retrieved.body.error };
        });
      }
      function pay() {
        return call('POST', '/payment_methods', card(state)).then(function (pm) {
          if (pm.status !== 200) return { error: pm.body.error };
          return call('POST', path + '/confirm', { payment_method: pm.body.id, client_secret: clientSecret });
        }).then(function (confirmed) {
          if (confirmed.error) return confirmed;
          if (confirmed.status !== 200) return { error: confirmed.body.error };
          return confirmed.body.status === 'requires_action' ? authenticated() : result(confirmed.body);
        });
      }
      return retrieve().then(function (shown) {
        if (shown.status !== 200) return { error: shown.body.error };
        var mismatch = mismatchOf(kind, state.options, shown.body);
        return mismatch ? { error: { type: 'invalid_request_error', message: mismatch } } : pay();
      });
    }

    return {
      elements: elements,
      confirmSetup: function (args) { return confirm('setup', args); },
      confirmPayment: function (args) { return confirm('payment', args); },
      handleNextAction: handleNextAction
    };
  };
})();
`;
