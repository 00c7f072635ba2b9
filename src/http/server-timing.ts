/**
 * A `Server-Timing` header (W3C Server Timing): each metric with its duration in
 * milliseconds, in the order given. The search routes name where a search's time went on
 * the server (see `SearchTiming`) and `total`, from the request's arrival in the router until
 * its answer was ready to send. Browsers' developer tools show it beside the request's own
 * timings; what the client measured beyond `total` was spent outside the handler (reading
 * and parsing the request, writing the answer, the network).
 */
export function serverTimingHeader(metrics: Readonly<Record<string, number>>): string {
  return Object.entries(metrics)
    .map(([name, duration]) => `${name};dur=${ms(duration)}`)
    .join(', ');
}

/** Milliseconds to the microsecond (never negative: clocks of two threads may differ by a hair). */
function ms(value: number): string {
  return Math.max(0, value).toFixed(3);
}
