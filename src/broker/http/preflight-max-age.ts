/**
 * `server.cors.maxAge` (milliseconds) as the `Access-Control-Max-Age` header
 * takes it: whole seconds (Fetch standard, "CORS-preflight cache"). One
 * conversion for both listeners that answer preflights: the MCP listener's
 * @fastify/cors and the sign-in routes' own (src/broker/http/signin/replies.ts).
 */
export const preflightMaxAgeSeconds = (maxAgeMs: number): number => Math.floor(maxAgeMs / 1000);
