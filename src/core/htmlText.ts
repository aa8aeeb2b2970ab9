/**
 * Text put into HTML that we write by hand (e-mails, the mandate and pay pages, the capture frame): the five
 * characters HTML gives a meaning to, escaped, so that a customer's name or a seller's address is shown, never run.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
