import { describe, it } from 'node:test';
import { runChainScenario } from './chain-scenario.js';

describe('replication between real servers, 5,000 documents (--long)', () => {
  it('query processors answer as the admin through the whole scenario', async (t) => {
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
