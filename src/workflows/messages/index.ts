// Every signal, update and query of Replanner's workflows (B3), each payload with its zod schema
// (every payload is validated, S2), by audience: the run's public messages, a task's, and those
// between the workflows of a run.
// Names are what users type in `temporal workflow query/signal/update --name ...`.
export * from './payload';
export * from './run';
export * from './task';
export * from './internal';
