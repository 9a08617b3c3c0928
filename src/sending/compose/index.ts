/*
 * The composer: a campaign compiled once (compile.ts), then rendered per recipient (render.ts) into finished
 * messages for sending/transport.ts. What the worker and the test send use.
 */
export { compileCampaign } from './compile.js';
export { loadRecipients } from './recipients.js';
export { CompileError, RecipientError, standInRecipient, type CompiledCampaign, type RecipientData, type Rendered } from './types.js';
