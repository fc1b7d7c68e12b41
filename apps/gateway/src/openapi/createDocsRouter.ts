import { Router } from 'express';
import { buildOpenApiDocument } from './buildOpenApiDocument.ts';
import { renderDocsPage } from './renderDocsPage.ts';
import { ROUTE_CONTRACTS } from './routeContracts.ts';

/** Version of the data interface, which names the document's version. */
const API_VERSION = '2.2';

/**
 * GET /openapi.json and GET /docs, without an API key: the document is generated once, at start-up,
 * from the route contracts, and the page is rendered from the document (self-contained HTML).
 */
export function createDocsRouter(): Router {
  const document = buildOpenApiDocument(ROUTE_CONTRACTS, API_VERSION);
  const json = JSON.stringify(document);
  const html = renderDocsPage(document);
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(json);
  });
  router.get('/docs', (_req, res) => {
    res.type('text/html; charset=utf-8').send(html);
  });
  return router;
}
