/**
 * `/widget/v1/emandate.js` (docs/design/hosted-pages.md, "eMandate pages"): defines `window.EMandate.init({
 * containerID, token, onComplete, onError })`, which puts the signing frame in the container and maps the frame's
 * messages to the callbacks. Messages count only from that frame, from our origin, in the widget's envelope with
 * the frame's own id.
 */
export const EMANDATE_LOADER = `(function () {
  'use strict';
  var script = document.currentScript;
  // Loaded other than by a script tag (bundled, or as a module) it cannot know the service's origin: guessing the
  // page's own would frame the merchant's site instead.
  if (!script || !script.src) return;
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
      if (m.type === 'widget.resize' && m.data && m.data.height > 0) frame.style.height = (m.data.height + 24) + 'px';
      else if (m.type === 'emandate.signed' && typeof options.onComplete === 'function') options.onComplete(m.data);
      else if (m.type === 'emandate.failed' && typeof options.onError === 'function') options.onError(m.data);
    });
    container.appendChild(frame);
    return { widgetId: widgetId, frame: frame };
  }
  window.EMandate = { init: init };
})();
`;
