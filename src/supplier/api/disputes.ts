/** (stub: being written) */
export const disputesEndpoints = {} as const;
