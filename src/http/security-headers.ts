import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * The response headers that tell browsers how to treat our answers, set by @fastify/helmet
 * on every answer (JSON, text, HTML, errors and 404s alike): `X-Content-Type-Options:
 * nosniff` (a JSON answer is never sniffed into HTML), `X-Frame-Options: DENY`, a
 * `Content-Security-Policy` that loads nothing, `Referrer-Policy: no-referrer`, the
 * Cross-Origin-*-Policy headers, and the rest of helmet's defaults.
 *
 * Pages that do load something have their own policy ({@link pageHeaders}, set per route).
 * HSTS is left out: whether a host (and its subdomains) must be reached over HTTPS for a
 * year is the operator's choice, made where TLS ends (often a proxy), not ours.
 */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** helmet's options for a policy given as the header's text, and a referrer policy. */
export interface PageHeaders {
  contentSecurityPolicy: { useDefaults: false; directives: Record<string, string[]> };
  referrerPolicy: { policy: ReferrerPolicy };
}

type ReferrerPolicy = 'no-referrer' | 'same-origin' | 'strict-origin-when-cross-origin';

/** Registers helmet for every route of `app` (before the routes, so that 404s get it too). */
export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(fastifyHelmet, {
    global: true,
    ...pageHeaders(API_POLICY, 'no-referrer'),
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
  });
}

/**
 * The headers of a page with its own policy (`csp`: the header's text, as a page documents
 * it) and referrer policy, as route options of @fastify/helmet (`config.helmet`).
 */
export function pageHeaders(csp: string, referrer: ReferrerPolicy): PageHeaders {
  const directives: Record<string, string[]> = {};
  for (const part of csp.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name !== undefined && name !== '') directives[name] = values;
  }
  return {
    contentSecurityPolicy: { useDefaults: false, directives },
    referrerPolicy: { policy: referrer },
  };
}

/**
 * Gives every route registered after it in `app`'s context the page headers `headers`
 * (an `onRoute` hook: for plugins whose routes are all pages, such as the admin UI).
 */
export function usePageHeaders(app: FastifyInstance, headers: PageHeaders): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    route.config = { ...(route.config as object | undefined), helmet: headers } as RouteOptions['config'];
  });
}
