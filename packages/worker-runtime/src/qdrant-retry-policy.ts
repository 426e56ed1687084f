/**
 * Which Qdrant requests may be sent again after the connection failed under them, and which
 * failures those are. A socket that dies mid-request leaves it unknown whether the server applied
 * the request, so only a request whose repeat leaves Qdrant as one application would is resent.
 * Operation names are the REST client's (`client.api()` keys, Qdrant's OpenAPI operation ids).
 */

/**
 * Reads: GETs and the POSTs that only read (search, query, scroll, count, retrieve...). Resent.
 */
const READS = [
  'root',
  'telemetry',
  'metrics',
  'healthz',
  'livez',
  'readyz',
  'getIssues',
  'clusterStatus',
  'clusterTelemetry',
  'getCollections',
  'getCollection',
  'collectionExists',
  'collectionClusterInfo',
  'getOptimizations',
  'getCollectionAliases',
  'getCollectionsAliases',
  'listShardKeys',
  'listSnapshots',
  'getSnapshot',
  'listFullSnapshots',
  'getFullSnapshot',
  'streamShardSnapshot',
  'listShardSnapshots',
  'getShardSnapshot',
  'getPoint',
  'getPoints',
  'scrollPoints',
  'countPoints',
  'facet',
  'searchPoints',
  'searchBatchPoints',
  'searchPointGroups',
  'searchMatrixPairs',
  'searchMatrixOffsets',
  'recommendPoints',
  'recommendBatchPoints',
  'recommendPointGroups',
  'discoverPoints',
  'discoverBatchPoints',
  'queryPoints',
  'queryBatchPoints',
  'queryPointsGroups',
] as const;

/**
 * Writes whose repeat leaves the same state. Points always carry their ids over REST, so an upsert
 * rewrites the same points; payload and vector updates set the same values; deletes find nothing
 * more to delete (a repeated snapshot delete answers 404, a repeated collection delete `false`);
 * a field index that exists is accepted again. Resent.
 */
const REPEATABLE_WRITES = [
  'upsertPoints',
  'deletePoints',
  'updateVectors',
  'deleteVectors',
  'setPayload',
  'overwritePayload',
  'deletePayload',
  'clearPayload',
  'updateCollection',
  'deleteCollection',
  'createFieldIndex',
  'deleteFieldIndex',
  'deleteVectorName',
  'deleteSnapshot',
  'deleteFullSnapshot',
  'deleteShardSnapshot',
  'clearIssues',
] as const;

/**
 * Sent once: a repeat makes a second thing (another snapshot), starts a second long job over the
 * first (a snapshot recovery), turns a done create into an error (409 on a collection or vector
 * that now exists), or changes the cluster's topology. The caller sees the socket error and
 * decides, as it does for any failed write. `batchUpdate` is here too: each of its operations is
 * repeatable alone, but a sequence with filters need not be (a later step may change what an
 * earlier step's filter matches).
 */
const SINGLE_WRITES = [
  'createCollection',
  'createVectorName',
  'createSnapshot',
  'createFullSnapshot',
  'createShardSnapshot',
  'recoverFromSnapshot',
  'recoverFromUploadedSnapshot',
  'recoverShardFromSnapshot',
  'recoverShardFromUploadedSnapshot',
  'batchUpdate',
  'createShardKey',
  'deleteShardKey',
  'updateCollectionCluster',
  'recoverCurrentPeer',
  'removePeer',
] as const;

/** Alias actions Qdrant applies idempotently (measured on 1.18: create over an existing alias repoints it; delete of a missing one answers true). */
const REPEATABLE_ALIAS_ACTIONS = new Set(['create_alias', 'delete_alias']);

export type QdrantOperationClass = 'read' | 'repeatable-write' | 'single-write' | 'alias-update';

const CLASSES = new Map<string, QdrantOperationClass>([
  ...READS.map((name) => [name, 'read'] as const),
  ...REPEATABLE_WRITES.map((name) => [name, 'repeatable-write'] as const),
  ...SINGLE_WRITES.map((name) => [name, 'single-write'] as const),
  ['updateAliases', 'alias-update'],
]);

/** The operation's class, or undefined for one this policy has not judged (a newer client's): never resent. */
export function qdrantOperationClass(operation: string): QdrantOperationClass | undefined {
  return CLASSES.get(operation);
}

/**
 * Whether this request may be resent after a socket error. `updateAliases` is judged by its actions:
 * create/delete only (the effector's switch, the RAGs' blue/green) are repeatable, a rename is not
 * (its repeat finds the old name gone).
 */
export function mayResend(operation: string, payload: unknown): boolean {
  switch (qdrantOperationClass(operation)) {
    case 'read':
    case 'repeatable-write':
      return true;
    case 'alias-update': {
      const actions = (payload as { actions?: unknown } | null | undefined)?.actions;
      return (
        Array.isArray(actions) &&
        actions.every((action) => {
          const keys = typeof action === 'object' && action !== null ? Object.keys(action) : [];
          return keys.length === 1 && REPEATABLE_ALIAS_ACTIONS.has(keys[0]!);
        })
      );
    }
    default:
      return false;
  }
}

/**
 * Codes of a connection that failed under a request: the server closed a pooled socket as the client
 * reused it (undici's `UND_ERR_SOCKET` "other side closed"), or reset it. A refused connection, a
 * timeout or an HTTP error status is not one: those say something about the server, not the socket.
 */
const SOCKET_ERROR_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** Whether the error (fetch's `TypeError: fetch failed` or `terminated`, or any error along its `cause` chain) is a dropped socket. */
export function isSocketError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && SOCKET_ERROR_CODES.has(code)) return true;
    if (typeof message === 'string' && /other side closed/i.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Qdrant's 408 Request Timeout: the server gave up on the request before applying it or while waiting
 * for it (`wait=true` on a loaded server). A request that may be resent is, like one whose socket
 * dropped: a reference RAG's startup ingest died on one at load 20 (issue 38's CI trial).
 */
export function isRequestTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 408;
}

/** A failure after which a request that may be resent is: a dropped socket or Qdrant's 408. */
export function isResendableFailure(error: unknown): boolean {
  return isSocketError(error) || isRequestTimeout(error);
}

/** The error's socket code along its cause chain, for the log line. */
export function socketErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
