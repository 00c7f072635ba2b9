import type { OptionName } from './cli-options.js';

/** Options of `serve`. */
export const SERVE_OPTIONS: readonly OptionName[] = ['home', 'port', 'host', 'help'];

/** Help of `serve`. */
export const SERVE_USAGE = `Usage: pushsearch serve [--home DIR] [--port N] [--host ADDR]
Runs the HTTP server (push API, admin API, search) until SIGTERM or SIGINT.
  --home DIR    installation folder [SEARCH_HOME], default ./search-home
  --port N      TCP port [PORT], default 8080 (0: any free port)
  --host ADDR   interface [HOST], default 127.0.0.1
Logging: LOG_LEVEL (trace, debug, info, warn, error, silent), default info.
The first start creates user admin; its password is SEARCH_ADMIN_PASSWORD, or a random one
written to $SEARCH_HOME/conf/initial-admin-password (removed once the password changes). A
later SEARCH_ADMIN_PASSWORD replaces that generated password while nobody changed it, never a
chosen one (the start then prints a WARNING).`;
