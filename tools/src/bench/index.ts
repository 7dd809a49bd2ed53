/**
 * What the product's CLI loads for `dropflow bench webhooks`, `bench orders` and `bench accounts`
 * (src/cli/devtools.ts).
 */
export { DEFAULT_ACCOUNTS_BENCH, runAccountsBench } from './accountsBench.js';
export { accountsBenchJson, formatAccountsBench } from './accountsReport.js';
export { runGatewayBench } from './gatewayBench.js';
export { DEFAULT_ORDERS_BENCH, phaseComplete, runOrdersBench } from './ordersBench.js';
export { formatOrdersBench, ordersBenchJson } from './ordersReport.js';
export { formatGatewayBench } from './report.js';
