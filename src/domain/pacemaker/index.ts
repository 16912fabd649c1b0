// Duck Pacemaker: a task's dynamic loop limit from the agent's vitals and the task's complexity,
// and consultations with the user when a task goes badly. Pure policy.
export * from './config';
export * from './vitals';
export * from './calculator';
export * from './choices';
export * from './interventions';
export * from './consultation';
export * from './log';
export * from './stuck';
