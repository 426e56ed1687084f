/** The RAG answered with a non-2xx status; `body` is its Error document when it sent one. */
export class RagHttpError extends Error {
  constructor(
    readonly status: number,
    readonly operation: string,
    message: string,
    readonly body?: unknown,
  ) {
    super(`${operation}: HTTP ${status}: ${message}`);
    this.name = 'RagHttpError';
  }
}

/** The RAG could not be reached (connection refused, DNS, reset) or did not answer in time. */
export class RagUnreachableError extends Error {
  constructor(
    readonly operation: string,
    readonly url: string,
    readonly reason: 'timeout' | 'network',
    cause?: unknown,
  ) {
    super(`${operation}: ${reason === 'timeout' ? 'timed out' : 'unreachable'}: ${url}`, { cause });
    this.name = 'RagUnreachableError';
  }
}

/** A request or a response broke the contract (checked in both directions). */
export class ContractViolationError extends Error {
  constructor(
    readonly operation: string,
    readonly direction: 'request' | 'response',
    readonly detail: string,
  ) {
    super(`${operation}: ${direction} violates the RAG health contract: ${detail}`);
    this.name = 'ContractViolationError';
  }
}

/**
 * The RAG's response body ran past the client's cap (`maxResponseBytes`); the read was aborted. A
 * response that large breaks the contract, so it is a ContractViolationError (direction `response`).
 */
export class RagResponseTooLargeError extends ContractViolationError {
  constructor(
    operation: string,
    readonly url: string,
    readonly limitBytes: number,
  ) {
    super(operation, 'response', `the body exceeds ${limitBytes} bytes (the client's maxResponseBytes); the read was aborted`);
    this.name = 'RagResponseTooLargeError';
  }
}
