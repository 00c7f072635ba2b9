import { parentPort, workerData } from 'node:worker_threads';
import { isSearchError } from '../../errors.js';
import { nameThisThread } from '../../index/thread-name.js';
import { WorkBudget } from '../../query/work-budget.js';
import { ClickTrackingUrls } from '../click-tracking-url.js';
import { IdleScavenger, minorGc } from './idle-scavenge.js';
import { searchResponseBytes } from '../packet-json.js';
import { runSearch } from '../run-search.js';
import type { FromThreadMessage, SearchThreadData, ToThreadMessage } from './search-messages.js';
import { ThreadCatalog } from './thread-catalog.js';

/**
 * A search thread (see SearchThreadPool): runs one query at a time over the event loop's
 * shared index memory and answers its result packet. Settings, readers and schemas stay
 * between queries (see ThreadCatalog).
 */
const data = workerData as SearchThreadData;
nameThisThread(data.name);
const catalog = new ThreadCatalog();
const clickUrls = new ClickTrackingUrls(data.secret);
const port = parentPort!;
const scavenger = new IdleScavenger(minorGc());

function post(message: FromThreadMessage, transfer?: ArrayBuffer[]): void {
  port.postMessage(message, transfer);
}

port.on('message', (message: ToThreadMessage) => {
  if (message.type === 'forget') {
    catalog.forget(message.ids, message.points);
    return;
  }
  scavenger.queryStarts();
  try {
    const view = catalog.viewOf(message);
    const budget = new WorkBudget(message.deadline, message.maxPrefixTerms);
    const explanations = message.explain ? [] : undefined;
    const started = performance.now();
    const response = runSearch(
      view,
      message.params,
      (collection, url, rank, query) => clickUrls.url(collection, url, rank, query),
      explanations,
      budget,
    );
    const searched = performance.now();
    const timedOut = response.response.resultPacket.resultsSummary.timedOut;
    if (message.form === 'json') {
      const json = searchResponseBytes(response);
      const serializeMs = performance.now() - searched;
      post([message.taskId, timedOut, json, searched - started, serializeMs], [json.buffer as ArrayBuffer]);
    } else {
      post({
        type: 'result',
        taskId: message.taskId,
        timedOut,
        response,
        explanations: explanations ?? null,
        searchMs: searched - started,
      });
    }
  } catch (error) {
    const e = error as Error;
    post({
      type: 'error',
      taskId: message.taskId,
      code: isSearchError(error) ? error.code : null,
      message: e?.message ?? String(error),
      ...(e?.stack !== undefined ? { stack: e.stack } : {}),
    });
  }
  // The answer is on its way: a scavenge now delays no one (see IdleScavenger).
  scavenger.queryEnded(message.othersWaiting);
});
post({ type: 'ready' });
