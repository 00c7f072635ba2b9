import { ReplicationMaster, type ReplicationSource } from '../replication/replication-master.js';

/**
 * The master side of one collection: the {@link ReplicationMaster} its query processors copy
 * from, tied to the runtime it serves (an admin's index, a query processor's replica). A new
 * runtime (after a stop and start, or a mode switch) gets a new master; the old one is
 * closed, so no query processor is answered from a closed index.
 */
export class MasterSide {
  private current: { owner: object; master: ReplicationMaster } | undefined;

  /** The master serving `owner`, made over `source()` when `owner` has none yet. */
  for(owner: object, source: () => ReplicationSource): ReplicationMaster {
    if (this.current?.owner === owner) return this.current.master;
    this.current?.master.close();
    this.current = { owner, master: new ReplicationMaster(source()) };
    return this.current.master;
  }

  /** Closes the master (the runtime it served stops). */
  close(): void {
    this.current?.master.close();
    this.current = undefined;
  }
}
