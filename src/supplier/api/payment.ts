/** (stub: being written) */
export const paymentEndpoints = {} as const;
