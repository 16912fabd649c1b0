// Plan quality and refinement: a quality judge scores each plan, which is accepted, replanned with
// the judge's feedback, or rejected. Pure policy.
export * from './config';
export * from './quality';
export * from './stagnation';
export * from './decision';
export * from './structure';
export * from './record';
