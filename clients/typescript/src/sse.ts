/**
 * Reading Server-Sent Events, whichever way the platform can: from a streaming `fetch`
 * body (browsers, Node, Deno, Bun), or from an `XMLHttpRequest`'s growing `responseText`
 * where `fetch` cannot stream (React Native, whose `fetch` only answers once the whole
 * body is in).
 */
import { Code } from "@connectrpc/connect";

import { GenialError } from "./errors.js";

/** One event of a stream; a comment (such as a keep-alive) comes as `event: "comment"`. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/** How a platform can read a stream as it arrives. */
export type StreamReader = "fetch" | "xhr" | "none";

/**
 * What this platform can stream with, by feature detection: a `fetch` whose responses have
 * a readable `body`; else `XMLHttpRequest`, whose progress shows the body as it grows; else
 * nothing (then `GenialClient` watches by polling).
 */
export function streamReader(): StreamReader {
  if (
    typeof ReadableStream === "function" &&
    typeof Response === "function" &&
    "body" in Response.prototype
  ) {
    return "fetch";
  }
  return typeof XMLHttpRequest === "function" ? "xhr" : "none";
}

/** Cuts text into events, line by line, as it arrives in pieces of any size. */
export class EventParser {
  private buffer = "";
  private event = "message";
  private data: string[] = [];

  /** The events that `text` completes. */
  push(text: string): ServerSentEvent[] {
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, end).replace(/\r$/, "");
      this.buffer = this.buffer.slice(end + 1);
      if (line === "") {
        if (this.data.length > 0) {
          events.push({ event: this.event, data: this.data.join("\n") });
        }
        this.event = "message";
        this.data = [];
      } else if (line.startsWith(":")) {
        events.push({ event: "comment", data: line.slice(1).trim() });
      } else {
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "event") {
          this.event = value;
        } else if (name === "data") {
          this.data.push(value);
        }
      }
    }
    return events;
  }
}

/** The events of a streaming body. Leaving the loop cancels the body, which ends the
 * request; a body that breaks off throws UNAVAILABLE. */
export async function* bodyEvents(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new EventParser();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw cutOff(err, signal);
      }
      if (chunk.done) {
        return;
      }
      yield* parser.push(decoder.decode(chunk.value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** An error for a stream that broke off: CANCELLED when the caller aborted it. */
export function cutOff(err: unknown, signal: AbortSignal | undefined): GenialError {
  if (err instanceof GenialError) {
    return err;
  }
  if (signal?.aborted) {
    return new GenialError(Code.Canceled, "", "the watch was cancelled", {}, { cause: err });
  }
  return new GenialError(
    Code.Unavailable,
    "NETWORK_ERROR",
    `the stream broke off: ${err}`,
    {},
    {
      cause: err,
    },
  );
}

/** What an XHR stream hands its reader: events, its end, or why it failed. */
type XhrItem = { events: ServerSentEvent[] } | { end: true } | { error: GenialError };

/**
 * The events of a GET read with XMLHttpRequest, yielded as its progress shows them. A
 * status other than 200 throws what `refusal` makes of it; a request that fails throws
 * what `unreachable` makes of it.
 */
export async function* xhrEvents(
  url: string,
  headers: Headers,
  signal: AbortSignal | undefined,
  refusal: (status: number, text: string) => GenialError,
  unreachable: () => Promise<GenialError>,
): AsyncGenerator<ServerSentEvent> {
  const xhr = new XMLHttpRequest();
  const parser = new EventParser();
  const queue: XhrItem[] = [];
  let wake: (() => void) | undefined;
  let seen = 0;
  const put = (item: XhrItem) => {
    queue.push(item);
    wake?.();
  };
  const progress = () => {
    if (xhr.status !== 200 || xhr.readyState < 3) {
      return;
    }
    const text = xhr.responseText;
    const events = parser.push(text.slice(seen));
    seen = text.length;
    if (events.length > 0) {
      put({ events });
    }
  };
  xhr.onprogress = progress;
  xhr.onreadystatechange = progress;
  xhr.onload = () => {
    progress();
    put(xhr.status === 200 ? { end: true } : { error: refusal(xhr.status, xhr.responseText) });
  };
  xhr.onerror = () => void unreachable().then((error) => put({ error }));
  xhr.ontimeout = xhr.onerror;
  const abort = () => {
    xhr.abort();
    put({ error: cutOff(signal?.reason, signal) });
  };
  signal?.addEventListener("abort", abort, { once: true });
  xhr.open("GET", url);
  headers.forEach((value, name) => xhr.setRequestHeader(name, value));
  xhr.send();
  try {
    for (;;) {
      const item = queue.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
      } else if ("events" in item) {
        yield* item.events;
      } else if ("end" in item) {
        return;
      } else {
        throw item.error;
      }
    }
  } finally {
    signal?.removeEventListener("abort", abort);
    xhr.onprogress = xhr.onreadystatechange = xhr.onload = xhr.onerror = null;
    xhr.abort();
  }
}
