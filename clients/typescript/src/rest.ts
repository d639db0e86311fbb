import {
  create,
  fromJson,
  getOption,
  toJson,
  type DescMessage,
  type DescMethod,
  type DescMethodStreaming,
  type DescMethodUnary,
  type JsonValue,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { Code, type Transport } from "@connectrpc/connect";
import type { StreamResponse, UnaryResponse } from "@connectrpc/connect";

import { codeOf, GenialError } from "./errors.js";
import { http } from "./gen/google/api/annotations_pb.js";
import { anySignal, timeoutSignal } from "./signals.js";
import {
  bodyEvents,
  cutOff,
  EventParser,
  streamReader,
  xhrEvents,
  type ServerSentEvent,
  type StreamReader,
} from "./sse.js";

/** Options of the REST/JSON transport. */
export interface RestTransportOptions {
  /** Where the gateway is, such as "https://genial.example.com" (no trailing slash needed). */
  baseUrl: string;
  /** The fetch to use; default: the global one (browsers, Node 18+, Deno, Bun). */
  fetch?: typeof globalThis.fetch;
  /**
   * How to read WatchGame's stream: "fetch" (a streaming body), "xhr" (XMLHttpRequest's
   * progress, where fetch cannot stream, as in React Native) or "none" (then the stream is
   * read once it is whole; `GenialClient.rest` polls instead). Default: what the platform
   * can do (`streamReader()`).
   */
  stream?: StreamReader;
}

/** An HTTP route, as a method's google.api.http option gives it. */
interface Route {
  verb: string;
  /** The path, with `{field}` for each field taken from the request. */
  template: string;
  /** Whether the request's other fields go in a JSON body (else in the query string). */
  body: boolean;
}

const VARIABLE = /\{([^}]*)\}/g;

/**
 * A Connect transport that speaks the service's REST/JSON gateway: each method is called at
 * the route its `google.api.http` option gives (the same routes the gateway and the OpenAPI
 * document come from), with the protobuf JSON mapping; WatchGame reads Server-Sent Events.
 * It needs only `fetch`, so it works in browsers. Refusals throw `GenialError`.
 *
 * Use it like any transport: `createClient(GameService, createRestTransport({ baseUrl }))`,
 * or through `GenialClient.rest(baseUrl)`.
 */
export function createRestTransport(options: RestTransportOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const reader = options.stream ?? streamReader();

  function request(
    method: DescMethod,
    message: MessageShape<DescMessage>,
    header: HeadersInit | undefined,
  ): { url: string; init: RequestInit & { headers: Headers } } {
    const route = routeOf(method);
    const headers = new Headers(header);
    const { path, fields } = fill(route, method, message);
    let url = baseUrl + path;
    let body: string | undefined;
    if (route.body) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(fields);
    } else {
      url += query(fields);
    }
    return { url, init: { method: route.verb, headers, body } };
  }

  async function send(
    method: DescMethod,
    message: MessageShape<DescMessage>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
  ): Promise<Response> {
    const { url, init } = request(method, message, header);
    const deadline = timeoutMs ? timeoutSignal(timeoutMs) : undefined;
    let response: Response;
    try {
      response = await fetchImpl(url, { ...init, signal: anySignal(signal, deadline) });
    } catch (err) {
      throw await failed(err, signal, deadline);
    }
    if (!response.ok) {
      throw refusal(response.status, await response.text());
    }
    return response;
  }

  /** Why a request got no answer: cancelled, timed out, or the server is out of reach. */
  async function failed(
    err: unknown,
    signal: AbortSignal | undefined,
    deadline?: AbortSignal,
  ): Promise<GenialError> {
    if (signal?.aborted) {
      return cutOff(err, signal);
    }
    if (deadline?.aborted) {
      return new GenialError(Code.DeadlineExceeded, "", "no answer in time", {}, { cause: err });
    }
    return unreachable(err);
  }

  /**
   * A request that failed before any answer: a browser says only "Failed to fetch", whether
   * the server is down or refused this page's origin (CORS). A request the page cannot read
   * (mode "no-cors") tells the two apart: it gets through only if the server is up.
   */
  async function unreachable(err: unknown): Promise<GenialError> {
    const page = (globalThis as { location?: { origin?: string } }).location?.origin;
    const server = new URL(baseUrl).origin;
    if (page && page !== "null" && page !== server) {
      const probe = await fetchImpl(`${baseUrl}/v1/games?page_size=1`, {
        mode: "no-cors",
        signal: timeoutSignal(5000),
      }).then(
        () => true,
        () => false,
      );
      if (probe) {
        const message =
          `${server} answers, but does not let pages of ${page} call it (CORS): ` +
          `add ${page} to the server's cors_origins setting`;
        return new GenialError(Code.PermissionDenied, "CORS_REFUSED", message, { page, server });
      }
    }
    const message = `cannot reach ${server}: ${err}`;
    return new GenialError(Code.Unavailable, "NETWORK_ERROR", message, {}, { cause: err });
  }

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      const response = await send(method, create(method.input, input), signal, timeoutMs, header);
      let json: JsonValue;
      try {
        json = (await response.json()) as JsonValue;
      } catch (err) {
        throw cutOff(err, signal); // the connection broke off mid-answer
      }
      return {
        stream: false,
        service: method.parent,
        method,
        header: response.headers,
        trailer: new Headers(),
        message: fromJson(method.output, json, { ignoreUnknownFields: true }),
      };
    },

    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
    ): Promise<StreamResponse<I, O>> {
      if (method.methodKind !== "server_streaming") {
        throw new GenialError(Code.Unimplemented, "", `${method.name}: REST streams one way`);
      }
      let last: MessageInitShape<I> | undefined;
      for await (const message of input) {
        last = message;
      }
      const message = create(method.input, last);
      let events: AsyncIterable<ServerSentEvent> | Iterable<ServerSentEvent>;
      let headers = new Headers();
      if (reader === "xhr") {
        const { url, init } = request(method, message, header);
        events = xhrEvents(url, init.headers, signal, refusal, () => failed(undefined, signal));
      } else {
        const response = await send(method, message, signal, timeoutMs, header);
        headers = response.headers;
        // A fetch that cannot stream still reads the whole stream in the end.
        events = response.body
          ? bodyEvents(response.body, signal)
          : new EventParser().push(await response.text());
      }
      return {
        stream: true,
        service: method.parent,
        method,
        header: headers,
        trailer: new Headers(),
        message: answers(method.output, events),
      };
    },
  };
}

const routes = new WeakMap<DescMethod, Route>();

function routeOf(method: DescMethod): Route {
  let route = routes.get(method);
  if (route === undefined) {
    const rule = getOption(method, http);
    const { case: verb, value } = rule.pattern;
    if (verb === undefined || verb === "custom") {
      throw new GenialError(Code.Unimplemented, "", `${method.name} has no HTTP route`);
    }
    route = { verb: verb.toUpperCase(), template: value, body: rule.body === "*" };
    routes.set(method, route);
  }
  return route;
}

/** The path with the request's fields filled in, and the fields left for the query or body
 * (named as the gateway reads them: proto names in the query, JSON names in a body). */
function fill(
  route: Route,
  method: DescMethod,
  message: MessageShape<DescMessage>,
): { path: string; fields: Record<string, JsonValue> } {
  const fields = toJson(method.input, message, { useProtoFieldName: !route.body }) as Record<
    string,
    JsonValue
  >;
  const path = route.template.replace(VARIABLE, (_, name: string) => {
    const field = method.input.fields.find((f) => f.name === name);
    if (field === undefined) {
      throw new GenialError(Code.Unimplemented, "", `${method.name}: no field ${name}`);
    }
    delete fields[route.body ? field.jsonName : field.name];
    return encodeURIComponent(String((message as Record<string, unknown>)[field.localName]));
  });
  return { path, fields };
}

function query(fields: Record<string, JsonValue>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === "object" && value !== null) {
      throw new GenialError(Code.Unimplemented, "", `${name}: not a query parameter`);
    }
    params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** HTTP statuses as gRPC codes, for an answer without the gateway's error body (from a
 * proxy in front of it, say). */
const STATUS_CODES: Record<number, Code> = {
  400: Code.InvalidArgument,
  401: Code.Unauthenticated,
  403: Code.PermissionDenied,
  404: Code.NotFound,
  408: Code.DeadlineExceeded,
  409: Code.Aborted,
  429: Code.ResourceExhausted,
  500: Code.Internal,
  501: Code.Unimplemented,
  502: Code.Unavailable,
  503: Code.Unavailable,
  504: Code.DeadlineExceeded,
};

/** The gateway's error body, `{"error": {"code", "reason", "message", "details"}}`. */
function refusal(status: number, text: string): GenialError {
  try {
    return errorOf((JSON.parse(text) as { error: RestError }).error);
  } catch {
    const code = STATUS_CODES[status] ?? Code.Unknown;
    return new GenialError(code, "", `HTTP ${status}: ${text.slice(0, 200)}`);
  }
}

interface RestError {
  code: string;
  reason: string;
  message: string;
  details?: Record<string, string>;
}

function errorOf(error: RestError): GenialError {
  return new GenialError(codeOf(error.code), error.reason, error.message, error.details ?? {});
}

/** The stream's messages: its "join" and "move" events, and a keep-alive for each comment
 * (as gRPC sends them: `keep_alive` set, where the message has it); an "error" event throws. */
async function* answers<O extends DescMessage>(
  schema: O,
  events: AsyncIterable<ServerSentEvent> | Iterable<ServerSentEvent>,
): AsyncGenerator<MessageShape<O>> {
  const keepAlive = schema.fields.some((field) => field.name === "keep_alive")
    ? ({ keepAlive: true } as unknown as MessageInitShape<O>)
    : undefined;
  for await (const { event, data } of events) {
    if (event === "error") {
      throw errorOf((JSON.parse(data) as { error: RestError }).error);
    }
    yield event === "comment"
      ? create(schema, keepAlive)
      : fromJson(schema, JSON.parse(data) as JsonValue, { ignoreUnknownFields: true });
  }
}
