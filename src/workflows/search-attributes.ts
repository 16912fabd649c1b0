// The project's search attributes (registered by scripts/server and the test harness).
import { defineSearchAttributeKey } from '@temporalio/common';

export const PHASE_KEY = defineSearchAttributeKey('ReplannerPhase', 'KEYWORD');
export const STATUS_KEY = defineSearchAttributeKey('ReplannerStatus', 'KEYWORD');
export const REPLAN_COUNT_KEY = defineSearchAttributeKey('ReplanCount', 'INT');
/** Workspace affinity: the host whose worker owns the run's workspace (set at start). */
export const HOST_KEY = defineSearchAttributeKey('ReplannerHost', 'KEYWORD');
export const SEARCH_ATTRIBUTE_KEYS = [PHASE_KEY, STATUS_KEY, REPLAN_COUNT_KEY, HOST_KEY];
