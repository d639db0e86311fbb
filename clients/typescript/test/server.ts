/**
 * A `genial serve` worker for the tests: the one named by GENIAL_GRPC_URL and
 * GENIAL_HTTP_URL when both are set, or else one started here on free ports with the
 * in-memory store, using the repository's .venv (GENIAL_PYTHON picks another interpreter).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect, createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export interface Server {
  grpcUrl: string;
  httpUrl: string;
  stop(): Promise<void>;
}

const PYTHON =
  process.env.GENIAL_PYTHON ?? fileURLToPath(new URL("../../../.venv/bin/python", import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => resolve(true)).once("error", () => resolve(false));
    socket.unref();
  });
}

async function waitForPort(port: number, worker: ChildProcess, seconds = 20): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (worker.exitCode !== null) {
      throw new Error(`genial serve exited with ${worker.exitCode}`);
    }
    if (await listening(port)) {
      return;
    }
    await sleep(50);
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** A worker of the tests' own; `serveArgs` go to `genial serve` (and then one is always
 * started, whatever GENIAL_GRPC_URL says). */
export async function startServer(serveArgs: string[] = []): Promise<Server> {
  const { GENIAL_GRPC_URL: grpcUrl, GENIAL_HTTP_URL: httpUrl } = process.env;
  if (grpcUrl && httpUrl && serveArgs.length === 0) {
    return { grpcUrl, httpUrl, stop: async () => {} };
  }
  const [grpcPort, httpPort, adminPort] = [await freePort(), await freePort(), await freePort()];
  const worker = spawn(
    PYTHON,
    [
      "-m",
      "genial.service.cli",
      "serve",
      "--host",
      "127.0.0.1",
      "--grpc-port",
      `${grpcPort}`,
      "--http-port",
      `${httpPort}`,
      "--admin-port",
      `${adminPort}`,
      ...serveArgs,
    ],
    {
      env: {
        ...process.env,
        GENIAL_REDIS_URL: "",
        GENIAL_LOG_LEVEL: "WARNING",
        // A short drain: the tests end with nothing in flight.
        GENIAL_DRAIN_SECONDS: "1",
        // Every game comes from 127.0.0.1: the per-address quotas have tests of their own.
        GENIAL_GAMES_PER_MINUTE: "0",
        GENIAL_WAITING_GAMES: "0",
        // grpc-core logs each connection the tests close at INFO.
        GRPC_VERBOSITY: "ERROR",
      },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  try {
    await waitForPort(grpcPort, worker);
    await waitForPort(httpPort, worker);
    await waitForPort(adminPort, worker);
  } catch (err) {
    worker.kill();
    throw err;
  }
  return {
    grpcUrl: `http://127.0.0.1:${grpcPort}`,
    httpUrl: `http://127.0.0.1:${httpPort}`,
    async stop() {
      worker.kill("SIGTERM");
      await exited;
    },
  };
}
