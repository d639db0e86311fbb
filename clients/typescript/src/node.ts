/**
 * The gRPC side of the SDK, for Node only: `connectGrpc` talks gRPC (HTTP/2) to
 * `genial serve` (port 50051 by default) through @connectrpc/connect-node.
 */
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";

import { GenialClient, type ClientOptions } from "./client.js";

/** A GenialClient over gRPC, and `close()` for its HTTP/2 connection. */
export interface GrpcClient {
  client: GenialClient;
  /** Closes the connection (calls still running fail), so that the process can exit. */
  close(): void;
}

/** A client of the gRPC server at `baseUrl` ("http://localhost:50051", or https:// for TLS). */
export function connectGrpc(
  baseUrl = "http://localhost:50051",
  options: ClientOptions = {},
): GrpcClient {
  const sessionManager = new Http2SessionManager(baseUrl);
  const transport = createGrpcTransport({ baseUrl, sessionManager });
  return { client: new GenialClient(transport, options), close: () => sessionManager.abort() };
}
