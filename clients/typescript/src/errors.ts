import { BinaryReader } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";

/** The gRPC status codes by number, by the names the REST gateway sends. */
const CODE_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/** The reason of a call refused by a rate limit (with RESOURCE_EXHAUSTED and a retry_after). */
const RATE_LIMITED = "RATE_LIMITED";

/** The name of a status code, as gRPC and the REST gateway spell it: "ABORTED". */
export function codeName(code: Code): string {
  return CODE_NAMES[code] ?? "UNKNOWN";
}

/** The code of a status code's name; UNKNOWN for a name it does not know. */
export function codeOf(name: string): Code {
  const index = (CODE_NAMES as readonly string[]).indexOf(name);
  return index > 0 ? (index as Code) : Code.Unknown;
}

/**
 * A call the service refused, over either transport.
 *
 * `code` is the gRPC status code (`Code.Aborted`, ...), `reason` the stable reason of the
 * service's `google.rpc.ErrorInfo` (`"NOT_YOUR_TURN"`, `"STALE_VERSION"`, ...; see
 * docs/api.md), empty when the call failed before reaching the service; `metadata` the
 * ErrorInfo's metadata, such as `{ current_version: "12" }`; `retryAfterMs` the wait a rate
 * limit asked for.
 */
export class GenialError extends Error {
  override name = "GenialError";
  readonly code: Code;
  readonly reason: string;
  readonly metadata: Readonly<Record<string, string>>;

  constructor(
    code: Code,
    reason: string,
    message: string,
    metadata: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(`${codeName(code)} ${reason || "-"}: ${message}`, options);
    this.code = code;
    this.reason = reason;
    this.metadata = metadata;
  }

  /**
   * For a call refused by a rate limit (RESOURCE_EXHAUSTED, reason RATE_LIMITED), the
   * milliseconds the service asked to wait; undefined for any other error, or a wait not given.
   */
  get retryAfterMs(): number | undefined {
    if (this.code !== Code.ResourceExhausted || this.reason !== RATE_LIMITED) {
      return undefined;
    }
    const seconds = parseFloat(this.metadata.retry_after ?? "");
    return Number.isFinite(seconds) ? seconds * 1000 : undefined;
  }

  /** Any error a call threw, as a GenialError (the reason read from the status details). */
  static from(err: unknown): GenialError {
    if (err instanceof GenialError) {
      return err;
    }
    const connectError = ConnectError.from(err);
    for (const detail of connectError.details) {
      if ("type" in detail && detail.type === ERROR_INFO) {
        const info = decodeErrorInfo(detail.value);
        return new GenialError(
          connectError.code,
          info.reason,
          connectError.rawMessage,
          info.metadata,
          { cause: err },
        );
      }
    }
    return new GenialError(connectError.code, "", connectError.rawMessage, {}, { cause: err });
  }
}

const ERROR_INFO = "google.rpc.ErrorInfo";

/**
 * Decodes a google.rpc.ErrorInfo: `reason` (1), `domain` (2), `metadata` (3, a map).
 * Read by hand because no npm package ships google/rpc for protobuf-es, and these three
 * fields are all the service sends.
 */
function decodeErrorInfo(bytes: Uint8Array): { reason: string; metadata: Record<string, string> } {
  const reader = new BinaryReader(bytes);
  let reason = "";
  const metadata: Record<string, string> = {};
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) {
      reason = reader.string();
    } else if (field === 3) {
      const entry = new BinaryReader(reader.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [entryField, entryWireType] = entry.tag();
        if (entryField === 1) {
          key = entry.string();
        } else if (entryField === 2) {
          value = entry.string();
        } else {
          entry.skip(entryWireType);
        }
      }
      metadata[key] = value;
    } else {
      reader.skip(wireType);
    }
  }
  return { reason, metadata };
}
