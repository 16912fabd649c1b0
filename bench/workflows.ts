// The bench worker's workflow bundle: Replanner's workflows plus the floor, on one worker.
export * from '../src/workflows';
export * from './floor-workflows';
