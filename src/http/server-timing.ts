import type { SearchTiming } from '../search/search-service.js';

/**
 * The `Server-Timing` header (W3C Server Timing) of a search: where its time went on the
 * server, in milliseconds (see {@link SearchTiming}), and `total`, from the request's arrival
 * in the router until its answer was ready to send. Browsers' developer tools show it beside
 * the request's own timings; what the client measured beyond `total` was spent outside the
 * handler (reading and parsing the request, writing the answer, the network).
 */
export function serverTimingHeader(timing: SearchTiming, totalMs: number): string {
  return (
    `wait;dur=${ms(timing.wait)}, hop;dur=${ms(timing.hop)}, search;dur=${ms(timing.search)}, ` +
    `serialize;dur=${ms(timing.serialize)}, total;dur=${ms(totalMs)}`
  );
}

/** Milliseconds to the microsecond (never negative: clocks of two threads may differ by a hair). */
function ms(value: number): string {
  return Math.max(0, value).toFixed(3);
}
