/**
 * A loopback HTTP/1.1 server speaking just enough of Qdrant's REST JSON for the keep-alive tests.
 * It answers the first request on each connection with keep-alive, and drops a connection it has
 * already answered once the next request arrives on it: the moment a server closing an idle socket
 * meets a client reusing that socket, made to happen every time rather than by luck of timing.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  /** The connection it came on (1, 2, ... in order of accept). */
  connection: number;
  /** Whether the server answered it (false: dropped with its connection). */
  answered: boolean;
}

type Drop = 'reused' | 'none' | 'all';

export class IdleClosingServer {
  readonly requests: SeenRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private connections = 0;
  /** Sockets the client closed itself (end of stream before the server dropped it). */
  clientClosed = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** `reused` (the race), `none` (a server that never closes idle connections) or `all` (never answers). */
    private readonly drop: Drop,
  ) {}

  static async start(options: { drop?: Drop } = {}): Promise<IdleClosingServer> {
    const holder: { self?: IdleClosingServer } = {};
    const server = createServer((socket) => holder.self?.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    holder.self = new IdleClosingServer(server, `http://127.0.0.1:${port}`, options.drop ?? 'reused');
    return holder.self;
  }

  /** How many requests of this method and path arrived (answered or dropped). */
  count(method: string, path: string): number {
    return this.requests.filter((r) => r.method === method && r.path === path).length;
  }

  get connectionCount(): number {
    return this.connections;
  }

  private accept(socket: Socket): void {
    const connection = (this.connections += 1);
    this.sockets.add(socket);
    let answered = 0;
    let dropped = false;
    let buffer = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.once('end', () => {
      if (!dropped) this.clientClosed += 1;
    });
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const head = buffer.subarray(0, headEnd).toString('latin1');
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < headEnd + 4 + length) return;
        const [method = '', path = ''] = head.split('\r\n')[0]!.split(' ');
        buffer = buffer.subarray(headEnd + 4 + length);
        if (this.drop === 'all' || (this.drop === 'reused' && answered > 0)) {
          this.requests.push({ method, path, connection, answered: false });
          dropped = true;
          socket.destroy();
          return;
        }
        this.requests.push({ method, path, connection, answered: true });
        answered += 1;
        const body = JSON.stringify({ result: resultFor(method, path), status: 'ok', time: 0 });
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      }
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Qdrant's result for the few calls the tests make. */
function resultFor(method: string, path: string): unknown {
  if (method === 'GET' && path === '/collections') return { collections: [] };
  if (method === 'POST' && /\/points\/count$/.test(path)) return { count: 3 };
  if (method === 'PUT' && /\/points(\?|$)/.test(path)) return { operation_id: 1, status: 'completed' };
  if (method === 'POST' && /\/snapshots(\?|$)/.test(path)) return { name: 'c-1.snapshot', creation_time: null, size: 1 };
  return true;
}
