// Duck Pacemaker (P1–P8 in docs/requirements.md). Pure policy.
export * from './config';
export * from './vitals';
export * from './calculator';
export * from './choices';
export * from './interventions';
export * from './consultation';
export * from './log';
export * from './stuck';
