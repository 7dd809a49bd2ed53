/** (stub: being written) */
export const waybillEndpoints = {} as const;
