// Duck Pacemaker (SPEC §5, P1–P8). Pure policy.
export * from './config';
export * from './vitals';
export * from './calculator';
export * from './choices';
export * from './interventions';
export * from './consultation';
export * from './log';
