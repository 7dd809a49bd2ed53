/** (stub: being written) */
export const shopsEndpoints = {} as const;
