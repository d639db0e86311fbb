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

/** Options of the REST/JSON transport. */
export interface RestTransportOptions {
  /** Where the gateway is, such as "https://genial.example.com" (no trailing slash needed). */
  baseUrl: string;
  /** The fetch to use; default: the global one (browsers, Node 18+, Deno, Bun). */
  fetch?: typeof globalThis.fetch;
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

  async function send(
    method: DescMethod,
    message: MessageShape<DescMessage>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
  ): Promise<Response> {
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
    const signals = [signal, timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined];
    const response = await fetchImpl(url, {
      method: route.verb,
      headers,
      body,
      signal: AbortSignal.any(signals.filter((s) => s !== undefined)),
    }).catch((err: unknown) => {
      throw new GenialError(Code.Unavailable, "", String(err), {}, { cause: err });
    });
    if (!response.ok) {
      throw await refusal(response);
    }
    return response;
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
      const json = (await response.json()) as JsonValue;
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
      let request: MessageInitShape<I> | undefined;
      for await (const message of input) {
        request = message;
      }
      const response = await send(method, create(method.input, request), signal, timeoutMs, header);
      return {
        stream: true,
        service: method.parent,
        method,
        header: response.headers,
        trailer: new Headers(),
        message: answers(method.output, response),
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

/** The gateway's error body, `{"error": {"code", "reason", "message", "details"}}`. */
async function refusal(response: Response): Promise<GenialError> {
  const text = await response.text();
  try {
    return errorOf((JSON.parse(text) as { error: RestError }).error);
  } catch {
    return new GenialError(Code.Unknown, "", `HTTP ${response.status}: ${text.slice(0, 200)}`);
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

/** The stream's messages: its "join" and "move" events; an "error" event throws. */
async function* answers<O extends DescMessage>(
  schema: O,
  response: Response,
): AsyncGenerator<MessageShape<O>> {
  if (response.body === null) {
    return;
  }
  for await (const { event, data } of serverSentEvents(response.body)) {
    if (event === "error") {
      throw errorOf((JSON.parse(data) as { error: RestError }).error);
    }
    yield fromJson(schema, JSON.parse(data) as JsonValue, { ignoreUnknownFields: true });
  }
}

/** The events of a Server-Sent Events body (comments, such as keep-alives, skipped). Leaving
 * the loop cancels the body, which ends the request. */
async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "message";
  let data: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).replace(/\r$/, "");
        buffer = buffer.slice(end + 1);
        if (line === "") {
          if (data.length > 0) {
            yield { event, data: data.join("\n") };
          }
          event = "message";
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const name = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (name === "event") {
            event = text;
          } else if (name === "data") {
            data.push(text);
          }
        }
      }
    }
  } finally {
    await reader.cancel();
  }
}
