/** (stub: being written) */
export const inventoryEndpoints = {} as const;
