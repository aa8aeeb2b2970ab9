import type { FastifyReply } from 'fastify';
import type { MemoryPart, ServiceContext, ServiceMemory } from '../../context.ts';
import type { Page } from '../../core/paging.ts';
import type { Db } from '../../storage/database.ts';
import { readCatalogueRevision } from './catalogueRevision.repository.ts';

/**
 * The list pages of packages and components, kept in the process as the text of their responses
 * (docs/architecture.md, "Catalogue pages kept in the process"). A page is served from here only when it was read at
 * the account's current catalogue revision, which is read from the database on every request: a write made by any
 * process moves it on in its own transaction, so the next request anywhere reads the page afresh.
 *
 * What moves without a catalogue write is left out of the kept text: a packages page keeps a hole where each
 * version's SubscriptionCount goes, filled on every request from its own statement.
 */
export interface RenderedPage {
  /** The response's text, cut where the counts go: pieces[i], count of versionIds[i], pieces[i + 1], … */
  pieces: string[];
  /** The versions whose counts fill the holes, in the order of the text. */
  versionIds: number[];
}

interface KeptPage {
  revision: number;
  page: RenderedPage;
  chars: number;
}

/** Pages by account and paging, the least recently used going first once their text passes `maxChars`. */
export class KeptPages {
  #pages = new Map<string, KeptPage>();
  #chars = 0;

  constructor(readonly maxChars: number) {}

  find(key: string, revision: number): RenderedPage | undefined {
    const kept = this.#pages.get(key);
    if (kept === undefined) return undefined;
    this.#pages.delete(key);
    if (kept.revision !== revision) {
      this.#chars -= kept.chars;
      return undefined;
    }
    this.#pages.set(key, kept);
    return kept.page;
  }

  keep(key: string, revision: number, page: RenderedPage): void {
    const chars = page.pieces.reduce((sum, piece) => sum + piece.length, 0);
    const replaced = this.#pages.get(key);
    if (replaced !== undefined) {
      this.#pages.delete(key);
      this.#chars -= replaced.chars;
    }
    if (chars > this.maxChars) return;
    for (const [oldest, kept] of this.#pages) {
      if (this.#chars + chars <= this.maxChars) break;
      this.#pages.delete(oldest);
      this.#chars -= kept.chars;
    }
    this.#pages.set(key, { revision, page, chars });
    this.#chars += chars;
  }

  get size(): { pages: number; chars: number } {
    return { pages: this.#pages.size, chars: this.#chars };
  }
}

/**
 * In the service's memory, the pages it keeps and the database they are read from (the server's): a context on
 * another handle (a transaction, whose reads may not be committed) keeps none, nor does a service that keeps none.
 */
const KEPT_PAGES: MemoryPart<{ kept?: { db: Db; pages: KeptPages } }> = {
  name: 'kept catalogue pages',
  make: () => ({}),
};

/** The service keeps catalogue pages read from `db`, up to `maxChars` characters of text; 0 keeps none. */
export function keepCataloguePages(db: Db, memory: ServiceMemory, maxChars: number): void {
  memory.part(KEPT_PAGES).kept = maxChars > 0 ? { db, pages: new KeptPages(maxChars) } : undefined;
}

function keptPagesOf(ctx: ServiceContext): KeptPages | undefined {
  const { kept } = ctx.memory.part(KEPT_PAGES);
  return kept?.db === ctx.db ? kept.pages : undefined;
}

/** Whether the context keeps catalogue pages; a request that does not renders its page as any other route. */
export function keepsCataloguePages(ctx: ServiceContext): boolean {
  return keptPagesOf(ctx) !== undefined;
}

/** How much the service of `memory` keeps (for tests and benchmarks). */
export function keptCataloguePages(memory: ServiceMemory): { pages: number; chars: number } {
  return memory.part(KEPT_PAGES).kept?.pages.size ?? { pages: 0, chars: 0 };
}

/**
 * The page of `list` (packages or components) at the account's current revision: kept, or rendered by `render`
 * and kept when the revision read after it is the one read before it (no write came between, so every statement
 * of `render` saw the same catalogue).
 */
export async function renderedCataloguePage(
  ctx: ServiceContext,
  list: 'packages' | 'components',
  page: Page,
  render: () => Promise<RenderedPage>,
): Promise<RenderedPage> {
  const pages = keptPagesOf(ctx);
  if (pages === undefined) return render();
  const key = `${ctx.account.id}/${list}/${page.limit}/${page.offset}`;
  const revision = await readCatalogueRevision(ctx.db, ctx.account.id);
  const kept = pages.find(key, revision);
  if (kept !== undefined) return kept;
  const rendered = await render();
  if ((await readCatalogueRevision(ctx.db, ctx.account.id)) === revision) pages.keep(key, revision, rendered);
  return rendered;
}

/** The response's text, each hole filled with its version's count. */
export function fillCounts(page: RenderedPage, counts: ReadonlyMap<number, number>): string {
  let text = page.pieces[0]!;
  for (let i = 0; i < page.versionIds.length; i += 1) {
    text += String(counts.get(page.versionIds[i]!) ?? 0) + page.pieces[i + 1]!;
  }
  return text;
}

/** The route's own serializer of its 200 response, so that a kept page is the very text the route would send. */
export function routeSerializer(reply: FastifyReply): (body: unknown) => string {
  const serialize = reply.getSerializationFunction('200');
  if (serialize === undefined) throw new Error(`${reply.request.url}: the route has no 200 response schema`);
  return serialize as (body: unknown) => string;
}

/** Fastify sends a text under a JSON content type as it is, as it sends what it serialized itself. */
export function sendSerialized(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
