// The floor's only activity: does nothing, so its time is Temporal's alone.
export const floorActivities = {
  async floorNoop(): Promise<void> {},
};
export type FloorActivities = typeof floorActivities;
