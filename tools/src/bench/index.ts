/** What the product's CLI loads for `dropflow bench webhooks` and `dropflow bench orders` (src/cli/devtools.ts). */
export { runGatewayBench } from './gatewayBench.js';
export { DEFAULT_ORDERS_BENCH, phaseComplete, runOrdersBench } from './ordersBench.js';
export { formatOrdersBench, ordersBenchJson } from './ordersReport.js';
export { formatGatewayBench } from './report.js';
