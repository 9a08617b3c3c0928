import type { Scenario } from './scenario.js';

/** The tracking area's bench scenarios (load or job; see ./scenario.ts), gathered by ./scenarios.ts. */
export const trackingScenarios: readonly Scenario[] = [];
