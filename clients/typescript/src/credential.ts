/**
 * What a call acts with: a seat's player token, or a player's session (`PlayerSession`),
 * which gives a fresh access token when asked.
 */

/**
 * Gives a bearer token when asked, and a new one when the last was refused: a player's
 * session (`PlayerSession`), which refreshes its access token by itself.
 */
export interface TokenSource {
  /** A token to send now (refreshed first when it is about to expire). */
  accessToken(): Promise<string>;
  /** Gets a new token: the service refused the last one (UNAUTHENTICATED). */
  renew(): Promise<void>;
}

/** What a call acts with: a seat's player token, or a player's session. */
export type Credential = string | TokenSource;

/** The headers that carry `token` (none without one). */
export async function auth(token: Credential | undefined): Promise<HeadersInit> {
  const bearer = typeof token === "object" ? await token.accessToken() : token;
  return bearer ? { authorization: `Bearer ${bearer}` } : {};
}
