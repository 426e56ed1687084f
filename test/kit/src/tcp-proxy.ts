/**
 * A TCP proxy in front of one server, for outage tests: point a single process at `url` instead of
 * the server's own address, then `cut()` it (every open connection is dropped and new ones are reset
 * at once, as when a node or its network goes away) and `restore()` it, while everyone else keeps
 * using the server directly.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private down = false;
  /** Connections refused while cut (how many times the proxied client tried). */
  refused = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly protocol: string,
  ) {}

  /** Listens on a free loopback port and forwards to `target` (an http(s) URL or host:port). */
  static async start(target: string): Promise<TcpProxy> {
    const url = new URL(target.includes('://') ? target : `tcp://${target}`);
    const host = url.hostname;
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    // The server hands connections to the proxy object created once it listens.
    const ready: { proxy?: TcpProxy } = {};
    const server = createServer((client) => ready.proxy?.accept(client, host, port));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
    ready.proxy = new TcpProxy(server, address.port, url.protocol === 'tcp:' ? 'http:' : url.protocol);
    return ready.proxy;
  }

  /** The proxy's address with the target's scheme, e.g. `http://127.0.0.1:40123`. */
  get url(): string {
    return `${this.protocol}//127.0.0.1:${this.port}`;
  }

  get isCut(): boolean {
    return this.down;
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.down) {
      this.refused += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ host, port });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** The outage: open connections dropped, new ones reset until `restore()`. */
  cut(): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
