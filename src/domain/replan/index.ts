// Replan policy: the phases' replan decisions and their limits, the task judge and re-decomposition,
// and the user's instruction in every replanning prompt. Pure, deterministic, safe in workflow code.
export * from './decision';
export * from './limits';
export * from './resolve';
export * from './policy';
export * from './escalation';
export * from './decision-log';
export * from './judge-outcome';
export * from './redecomposition';
export * from './prompt-context';
export * from './questions';
export * from './jump';
export * from './answers';
