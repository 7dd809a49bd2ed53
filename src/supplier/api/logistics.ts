/** (stub: being written) */
export const logisticsEndpoints = {} as const;
