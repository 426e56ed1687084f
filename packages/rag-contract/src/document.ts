import { fileURLToPath } from 'node:url';

/** Where the OpenAPI document lives, for tools and tests that load it. */
export const CONTRACT_DOCUMENT_PATH = fileURLToPath(new URL('../openapi/rag-health-contract.yaml', import.meta.url));

/** `info.version` of the document; servers report it in GET /capabilities. */
export const CONTRACT_VERSION = '1.4.0';
