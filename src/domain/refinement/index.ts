// Plan quality and refinement (R1–R7; C3/C4 helpers; docs/requirements.md). Pure policy.
export * from './config';
export * from './quality';
export * from './stagnation';
export * from './decision';
export * from './structure';
export * from './record';
