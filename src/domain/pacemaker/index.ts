// Duck Pacemaker (SPEC §5, P1–P8). Pure policy.
export * from './config';
export * from './vitals';
export * from './calculator';
export * from './interventions';
export * from './log';
