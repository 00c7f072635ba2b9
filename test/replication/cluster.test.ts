import { describe, it } from 'node:test';
import { runChainScenario } from './chain-scenario.js';

describe('replication between real servers (admin → QP1 → QP2)', () => {
  it('query processors answer as the admin through commits, deletes, a merge, kills, a restore and a RE_INDEX; wrong secret, writes and push.run=false refused', async (t) => {
    await runChainScenario(
      { documents: 600, bigDocuments: 120, bigBytes: 16_000, convergeMs: 30_000 },
      (message) => t.diagnostic(message),
    );
  });
});
