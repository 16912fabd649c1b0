// Replan policy (X1–X14, J1–J8, C2–C5; docs/requirements.md): pure, deterministic, safe in workflow code.
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
