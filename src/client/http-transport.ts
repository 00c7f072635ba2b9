import http from 'node:http';
import https from 'node:https';

/** One request as the transport sends it. */
export interface TransportRequest {
  method: string;
  /** Path and query, starting with `/`. */
  path: string;
  /** Header pairs in the order and case given (metadata names keep their case on the wire). */
  headers: [string, string][];
  body?: Buffer;
  timeoutMs: number;
}

/** A complete answer. */
export interface TransportResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * HTTP/1.1 over node:http or node:https with one keep-alive agent per client, so that a load
 * of many small requests reuses connections instead of paying a TCP (and TLS) handshake each.
 * node:http rather than fetch because fetch lower-cases header names, and metadata header
 * names are case-sensitive on the server.
 */
export class HttpTransport {
  readonly base: URL;
  private readonly agent: http.Agent;
  private readonly module: typeof http | typeof https;

  constructor(baseUrl: string, options: { maxSockets?: number; rejectUnauthorized?: boolean } = {}) {
    this.base = new URL(baseUrl);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') {
      throw new TypeError(`the server URL must start with http:// or https://, got ${baseUrl}`);
    }
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64 };
    if (this.base.protocol === 'https:') {
      this.module = https;
      this.agent = new https.Agent({
        ...agentOptions,
        rejectUnauthorized: options.rejectUnauthorized ?? true,
      });
    } else {
      this.module = http;
      this.agent = new http.Agent(agentOptions);
    }
  }

  /** Sends one request and reads the whole answer; rejects on network failure or timeout. */
  send(request: TransportRequest): Promise<TransportResponse> {
    const prefix = this.base.pathname.replace(/\/+$/, '');
    return new Promise((resolve, reject) => {
      // Node adds no Host header to a raw header list: HTTP/1.1 servers refuse a request without one.
      const headers: string[] = ['Host', this.base.host];
      for (const [name, value] of request.headers) headers.push(name, value);
      if (request.body !== undefined) headers.push('Content-Length', String(request.body.length));
      const req = this.module.request(
        {
          protocol: this.base.protocol,
          hostname: this.base.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: this.base.port === '' ? undefined : Number(this.base.port),
          method: request.method,
          path: prefix + request.path,
          // A flat array keeps repeated headers and the case of every name.
          headers: headers as unknown as http.OutgoingHttpHeaders,
          agent: this.agent,
          timeout: request.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${request.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(request.body);
    });
  }

  /** Closes the idle keep-alive connections (the process can then exit). */
  close(): void {
    this.agent.destroy();
  }
}
