import type { Scenario } from './scenario.js';

/** The sending area's bench scenarios (load or job; see ./scenario.ts), gathered by ./scenarios.ts. */
export const sendingScenarios: readonly Scenario[] = [];
