/**
 * Worlds one tool call asks at once (mark_lookup_all, mark_search, match=body).
 * Each world is its own server on its own connection and sees one request per
 * phase of a call, so the bound is on what one call holds open in the broker
 * (streams, response buffers), not on any world's load. At 8 a fan-out over 30
 * worlds ran in four waves, each as slow as its slowest world (bench/fan-out.ts).
 */
export const worldFanOut = 64;
