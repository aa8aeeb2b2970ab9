/**
 * The body of a message to a customer, written once and given as plain text and as HTML with the same content
 * (docs/portal.md, "E-mail"): a greeting, paragraphs, a link to act on, a table of figures, and the seller's
 * signature. Every text is escaped in the HTML; the text part is what a client without HTML shows.
 */
import { escapeHtml } from '../../core/htmlText.ts';
export type MessageBlock =
  | { paragraph: string; strong?: boolean }
  | { link: string; text: string }
  | { figures: [label: string, value: string][] };

export interface MessageContent {
  /** The HTML document's title: usually the subject. */
  title: string;
  greeting: string;
  blocks: MessageBlock[];
  /** The seller's name first, then its address, numbers and contact lines. */
  signature: string[];
}

function blockText(block: MessageBlock): string {
  if ('paragraph' in block) return block.paragraph;
  if ('link' in block) return block.link;
  return block.figures.map(([label, value]) => `${label}: ${value}`).join('\n');
}

function blockHtml(block: MessageBlock): string {
  const e = escapeHtml;
  if ('paragraph' in block)
    return block.strong ? `<p><strong>${e(block.paragraph)}</strong></p>` : `<p>${e(block.paragraph)}</p>`;
  if ('link' in block) return `<p><a href="${e(block.link)}">${e(block.text)}</a></p>`;
  const rows = block.figures.map(
    ([label, value]) =>
      `<tr><th scope="row" style="text-align: left; padding: 2px 12px 2px 0; font-weight: normal;">${e(label)}</th>` +
      `<td style="text-align: right;">${e(value)}</td></tr>`,
  );
  return ['<table style="border-collapse: collapse;">', ...rows, '</table>'].join('\n');
}

export function messageBody(content: MessageContent): { text: string; html: string } {
  const [from = '', ...details] = content.signature;
  const text = [
    content.greeting,
    ...content.blocks.map(blockText),
    '--\n' + content.signature.join('\n'),
  ].join('\n\n');
  const html = [
    '<!DOCTYPE html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(content.title)}</title></head>`,
    '<body style="font-family: sans-serif; color: #222; line-height: 1.5;">',
    `<p>${escapeHtml(content.greeting)}</p>`,
    ...content.blocks.map(blockHtml),
    `<p style="color: #555;"><strong>${escapeHtml(from)}</strong>${details.map((line) => `<br>${escapeHtml(line)}`).join('')}</p>`,
    '</body></html>',
  ].join('\n');
  return { text, html };
}
