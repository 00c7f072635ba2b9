import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

declare module 'fastify' {
  interface RouteShorthandOptions {
    /** This route's page headers (see {@link pageHeaders}), over the app's. */
    helmet?: Partial<PageHeaders>;
  }
  interface FastifyContextConfig {
    /** This route's page headers, as `helmet` or {@link usePageHeaders} gave them. */
    helmet?: Partial<PageHeaders>;
  }
}

/**
 * The response headers that tell browsers how to treat our answers, computed by helmet and
 * set on every answer (JSON, text, HTML, errors and 404s alike): `X-Content-Type-Options:
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

/** What helmet does to a response, replayed on each (helmet's middleware only sets and removes headers). */
type HeaderStep = readonly [name: string, value: string | null];

/** helmet's options for every answer that has no page headers of its own. */
const APP_OPTIONS: HelmetOptions = {
  ...pageHeaders(API_POLICY, 'no-referrer'),
  strictTransportSecurity: false,
  xFrameOptions: { action: 'deny' },
};

/**
 * Registers the headers for every answer of `app`, routes and 404s alike (before the routes,
 * so that every route's options are seen). helmet computes them once per set of options (the
 * app's, each page's): an answer only gets them set, where @fastify/helmet built helmet's
 * middleware again for every request.
 */
export function installSecurityHeaders(app: FastifyInstance): void {
  const appSteps = headerSteps(APP_OPTIONS);
  const pageSteps = new WeakMap<Partial<PageHeaders>, HeaderStep[]>();
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.helmet !== undefined)
      route.config = {
        ...(route.config as object | undefined),
        helmet: route.helmet,
      } as RouteOptions['config'];
  });
  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    const page = request.routeOptions.config.helmet;
    let steps = appSteps;
    if (page !== undefined) {
      let own = pageSteps.get(page);
      if (own === undefined) pageSteps.set(page, (own = headerSteps({ ...APP_OPTIONS, ...page })));
      steps = own;
    }
    const raw = reply.raw;
    for (const [name, value] of steps) {
      if (value === null) raw.removeHeader(name);
      else raw.setHeader(name, value);
    }
    done();
  });
}

/** What helmet's middleware does to a response with these options (none depend on the request). */
function headerSteps(options: HelmetOptions): HeaderStep[] {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader(name: string, value: string) {
      steps.push([name, value]);
    },
    removeHeader(name: string) {
      steps.push([name, null]);
    },
  } as unknown as ServerResponse;
  helmet(options)({} as never, recorder, (error?: unknown) => {
    if (error !== undefined && error !== null) throw error as Error;
  });
  // Removals first, when no header removed is also set (helmet's never are), so that the
  // order changes no answer: on a response without headers yet a removal has nothing to delete.
  const removals = steps.filter(([, value]) => value === null);
  const sets = steps.filter(([, value]) => value !== null);
  const removed = new Set(removals.map(([name]) => name.toLowerCase()));
  if (sets.some(([name]) => removed.has(name.toLowerCase()))) return steps;
  return [...removals, ...sets];
}

/**
 * The headers of a page with its own policy (`csp`: the header's text, as a page documents
 * it) and referrer policy, as helmet's options: a route's `helmet` option (or `config.helmet`).
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
