/**
 * What both stand-ins (stripeJs.ts, paystackInline.ts) draw their card fields with, as browser script text: an
 * element with attributes, a labelled input, the digits of what was typed.
 */
export const STAND_IN_DOM_HELPERS = `  function node(tag, attributes, text) {
    var element = document.createElement(tag);
    Object.keys(attributes).forEach(function (name) { element.setAttribute(name, attributes[name]); });
    if (text) element.textContent = text;
    return element;
  }
  function field(id, label, attributes) {
    var wrap = node('div', { class: 'field' });
    wrap.appendChild(node('label', { for: id }, label));
    var input = node('input', Object.assign({ id: id }, attributes));
    wrap.appendChild(input);
    return { wrap: wrap, input: input };
  }
  function digits(text) { return text.replace(/\\D/g, ''); }
`;
