import { pinnedScript } from '../../http/pinnedScript.ts';

/**
 * The embedding script (docs/design/hosted-pages.md, "eMandate pages"): defines `window.EMandate.init({
 * containerID, token, onComplete, onError })`, which puts the signing frame in the container and maps the frame's
 * messages to the callbacks. Messages count only from that frame, from our origin, in the widget's envelope with
 * the frame's own id.
 *
 * Pinned (docs/hosted-pages.md, "eMandates: a debit authority signed online"): served immutable at
 * `/widget/v2/emandate.js`, which merchants load with its integrity hash. These bytes never change: a new script
 * is a new path (`/widget/v3/…`). `/widget/v1/emandate.js`, from before pages could pin it, serves the same bytes
 * unpinned, briefly cached.
 */
export const EMANDATE_LOADER = `(function () {
  'use strict';
  var script = document.currentScript;
  // Loaded other than by a script tag with src (inline, eval'd, bundled, or as a module) it cannot know the service's
  // origin: guessing the page's own would frame the merchant's site instead. It frames nothing and says so, on the
  // console and to onError, without replacing a working EMandate loaded properly before.
  if (!script || !script.src) {
    var problem = 'emandate.js frames nothing: load it with <script src> from the billing service, whose address ' +
      'it needs to know where the signing page is.';
    if (window.console) window.console.error(problem);
    if (!window.EMandate) {
      window.EMandate = {
        init: function (options) {
          if (options && typeof options.onError === 'function') {
            options.onError({ token: options.token || null, reason: 'script_origin_unknown' });
          }
          return null;
        }
      };
    }
    return;
  }
  var base = new URL(script.src).origin;
  function randomId() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }
  function init(options) {
    options = options || {};
    var container = document.getElementById(options.containerID);
    if (!container) throw new Error('EMandate.init: no element with id ' + options.containerID);
    if (!options.token) throw new Error('EMandate.init: token is required');
    var widgetId = randomId();
    var frame = document.createElement('iframe');
    frame.src = base + '/widget/emandate/frame/' + encodeURIComponent(options.token) + '?widgetId=' + widgetId;
    frame.title = 'Sign the debit mandate';
    frame.style.width = '100%';
    frame.style.minHeight = '640px';
    frame.style.border = '0';
    frame.style.background = '#fff';
    frame.setAttribute('referrerpolicy', 'no-referrer');
    window.addEventListener('message', function (event) {
      if (event.origin !== base || event.source !== frame.contentWindow) return;
      var m = event.data;
      if (!m || m.ns !== 'billing-widget' || m.v !== 1 || m.widgetId !== widgetId) return;
      if (m.type === 'widget.resize' && m.data && typeof m.data.height === 'number' && m.data.height > 0) {
        frame.style.height = Math.min(Math.ceil(m.data.height) + 24, 4000) + 'px';
      } else if (m.type === 'emandate.signed' && typeof options.onComplete === 'function') options.onComplete(m.data);
      else if (m.type === 'emandate.failed' && typeof options.onError === 'function') options.onError(m.data);
    });
    container.appendChild(frame);
    return { widgetId: widgetId, frame: frame };
  }
  window.EMandate = { init: init };
})();
`;

/** The script at its pinned path, with the integrity hash merchants' pages carry. */
export const EMANDATE_SCRIPT = pinnedScript('/widget/v2/emandate.js', EMANDATE_LOADER);

/** Where pages loaded it before it was pinned: the same bytes, unpinned. */
export const EMANDATE_LOADER_V1_PATH = '/widget/v1/emandate.js';
