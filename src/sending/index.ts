/*
 * Sending: campaign delivery (worker, compose, transport), unsubscribe and forward, the links in campaign mail.
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 */
export { decodeForwardToken } from './forward-link.js';
export { received } from './forward.repository.js';
export { forward } from './forward.service.js';
export { decodeAnyPreferencesToken, decodePreferencesToken, pagePreferencesUrl, preferencesUrl } from './preferences-link.js';
export { createTransport, settingsTransport } from './transport.js';
export type { Transport } from './transport.js';
export { collectSendMetrics } from './send-metrics.js';
export { startWorker } from './worker.js';
export type { SendWorker } from './worker.js';
