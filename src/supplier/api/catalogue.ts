/** (stub: being written) */
export const catalogueEndpoints = {} as const;
