/** (stub: being written) */
export const ordersEndpoints = {} as const;
