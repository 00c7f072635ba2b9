/**
 * Debian's chromium driven by playwright-core (no browser download at install time), shared by
 * the browser tests (admin UI, landing page, results page). CI installs the package (.ci/run); without it the tests skip
 * with `skipWithoutChromium` saying what to install.
 */
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `false` when chromium is installed, else the reason to give `describe`'s `skip`. */
export const skipWithoutChromium: false | string = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser test`;

type Playwright = typeof import('playwright-core');
/** A launched headless chromium. */
export type Browser = Awaited<ReturnType<Playwright['chromium']['launch']>>;

/** Launches headless chromium (playwright-core is imported only when a browser test runs). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = (await import('playwright-core')) as Playwright;
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
