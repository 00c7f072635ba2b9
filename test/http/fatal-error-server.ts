/**
 * A server process for fatal-errors.test.ts: started the way the CLI starts it (signal and
 * fatal-error handlers on), plus a bug on request: IPC 'reject' leaves a promise rejection
 * unhandled, 'throw' throws from a timer. Sends `{ port }` once it listens.
 */
import { startServer } from '../../src/http/server.js';
import { TEST_SECURITY } from './helpers.js';

const home = process.argv[2];
if (home === undefined) throw new Error('usage: fatal-error-server.js <home>');
const server = await startServer({
  home,
  port: 0,
  logger: { level: 'info' },
  handleSignals: true,
  handleFatalErrors: true,
  security: TEST_SECURITY,
});
process.on('message', (message) => {
  if (message === 'reject')
    void Promise.reject(new Error('deliberate bug: a rejected promise nobody handles'));
  if (message === 'throw') {
    setTimeout(() => {
      throw new Error('deliberate bug: a throw from a timer');
    }, 0);
  }
});
process.send!({ port: server.port });
