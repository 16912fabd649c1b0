// P9: the stuck detector inside a worker's tool loop. Pure policy.
export * from './fingerprint';
export * from './detector';
export * from './task';
export { DEFAULT_STUCK_CONFIG, type StuckConfig } from '../config/stuck';
