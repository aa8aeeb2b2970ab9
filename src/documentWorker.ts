import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { INVOICE_DOCUMENT, drawInvoiceDocument } from './modules/invoicing/index.ts';
import type { InvoiceDocument } from './modules/invoicing/index.ts';
import { TAX_CREDIT_NOTE_DOCUMENT, drawTaxCreditNoteDocument } from './modules/ledger/index.ts';
import type { TaxCreditNoteDocument } from './modules/ledger/index.ts';
import { MANDATE_DOCUMENT, drawMandateDocument } from './modules/mandates/index.ts';
import type { MandateDocument } from './modules/mandates/index.ts';
import { STATEMENT_DOCUMENT, drawStatementDocument } from './modules/statements/index.ts';
import type { StatementDocument } from './modules/statements/index.ts';
import type { DocumentAnswer, DocumentRequest, DocumentThreadData } from './pdf/documentPool.ts';
import type { DrawingTurns } from './pdf/drawingTurns.ts';
import { preparePdfDrawing } from './pdf/pdfWriter.ts';
import { DrawingOverrun, RunningDrawing, SlicedDrawing } from './pdf/drawingTurns.ts';

/**
 * The entry of a PDF worker thread (src/pdf/documentPool.ts; docs/operations.md, "PDF documents"): it draws the
 * documents the pool hands it from the plain models the main thread read, several at once in slices
 * (src/pdf/drawingTurns.ts), and answers their bytes. Nothing here reads the database: a thread is stopped whenever
 * one slice overruns the budget, and must leave nothing half done.
 */
const drawings: Record<string, (model: never, turns: DrawingTurns) => Promise<Buffer>> = {
  [INVOICE_DOCUMENT]: (model: InvoiceDocument, turns) => drawInvoiceDocument(model, turns),
  [STATEMENT_DOCUMENT]: (model: StatementDocument, turns) => drawStatementDocument(model, turns),
  // A signed mandate is a page or two: drawn in one slice.
  [MANDATE_DOCUMENT]: (model: MandateDocument) => drawMandateDocument(model),
  [TAX_CREDIT_NOTE_DOCUMENT]: (model: TaxCreditNoteDocument, turns) =>
    drawTaxCreditNoteDocument(model, turns),
};

// NOTE: on Linux each thread has a nice value of its own, and setpriority(0) from a thread sets only its own: this
// thread gives way to the event loop, which answers every other request, whenever both want a core
// (docs/benchmarks.md, "PDFs off the event loop"). Where that cannot be done the thread draws at the same priority.
try {
  os.setPriority(os.constants.priority.PRIORITY_BELOW_NORMAL);
} catch {
  // Not allowed here: drawn at the process's priority.
}

const port = parentPort;
if (!port) throw new Error('src/documentWorker.ts runs as a worker thread of the document pool');
const { running: runningMemory, budgetMs } = workerData as DocumentThreadData;
const running = new RunningDrawing(runningMemory);

port.on('message', (request: DocumentRequest) => {
  void answer(request).then((reply) =>
    port.postMessage(reply, reply.ok ? [reply.pdf.buffer as ArrayBuffer] : []),
  );
});
preparePdfDrawing();
port.postMessage({ ready: true } satisfies DocumentAnswer);

async function answer(request: DocumentRequest): Promise<Extract<DocumentAnswer, { id: number }>> {
  const turns = new SlicedDrawing(request.id, budgetMs, running);
  try {
    const draw = drawings[request.kind];
    if (!draw) throw new Error(`no drawing for documents of kind ${request.kind}`);
    const pdf = await draw(request.model as never, turns);
    // Its own copy, so that transferring it moves no memory another Buffer shares (Buffer's pool).
    return { id: request.id, ok: true, pdf: new Uint8Array(pdf) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { id: request.id, ok: false, message, overrun: error instanceof DrawingOverrun };
  } finally {
    turns.done();
  }
}
