/**
 * The TypeScript SDK of the genial game service: the messages and the service descriptor
 * generated from proto/genial/v1 (protobuf-es), a REST/JSON transport for browsers, and
 * `GenialClient`, a thin wrapper that works over it or over gRPC (`genial-client/node`).
 */
export {
  DEFAULT_RETRY,
  GenialClient,
  Seat,
  type ClientOptions,
  type CreateOptions,
  type Kind,
  type MoveInit,
  type MoveOptions,
  type RetryPolicy,
  type Strength,
} from "./client.js";
export type { Credential, TokenSource } from "./credential.js";
export { PlayerSession } from "./player.js";
export { runBot, type BotStats, type Choose, type RunBotOptions } from "./bot.js";
export { Code } from "@connectrpc/connect";
export { codeName, GenialError } from "./errors.js";
export { createRestTransport, type RestTransportOptions } from "./rest.js";
export { streamReader, type StreamReader } from "./sse.js";
export { DEFAULT_WATCH, type Reconnecting, type WatchOptions, type WatchPolicy } from "./watch.js";
export * from "./gen/genial/v1/cards_pb.js";
export * from "./gen/genial/v1/color_pb.js";
export * from "./gen/genial/v1/dice_pb.js";
export * from "./gen/genial/v1/game_service_pb.js";
export * from "./gen/genial/v1/match_service_pb.js";
export * from "./gen/genial/v1/player_service_pb.js";
export * from "./gen/genial/v1/tiles_pb.js";
export * from "./gen/genial/v1/types_pb.js";
