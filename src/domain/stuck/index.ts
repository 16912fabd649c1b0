// The stuck detector inside a worker's tool loop: it ends an iteration that goes round in
// circles. Pure policy.
export * from './fingerprint';
export * from './detector';
export * from './task';
export { DEFAULT_STUCK_CONFIG, type StuckConfig } from '../config/stuck';
