/** (stub: being written) */
export const webhooksEndpoints = {} as const;
