import { describe, it } from 'node:test';
import { runChainScenario } from './chain-scenario.js';

describe('replication between real servers (admin → QP1 → QP2), 5,000 documents', () => {
  it('query processors answer as the admin through commits, deletes, a merge, kills, a restore and a RE_INDEX; wrong secret, writes and push.run=false refused', async (t) => {
    await runChainScenario(
      {
        documents: 5000,
        bigDocuments: 400,
        bigBytes: 20_000,
        convergeMs: 60_000,
        requireKillMidTransfer: true,
      },
      (message) => t.diagnostic(message),
    );
  });
});
