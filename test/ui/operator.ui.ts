/**
 * The operator's path in a real browser (`npm run test:ui`): Debian's Chromium, driven by
 * playwright-core, against the Temporal UI of a `dropflow dev` started here on free ports with a
 * data directory of its own.
 *
 * An order whose US zip the supplier refuses (flow B, `ABCDE`: 100102 at createOrderV3) comes in
 * through the gateway's intake. In the UI: the workflows list filtered by
 * `FulfillmentStage="INTERCEPTED"` (typed into the list's query box) with the FulfillmentStage
 * column added in the column picker lists it; its page shows the decoded input, the Summary and
 * the reason in Current Details. The zip is fixed at the sandbox (the supplier's own edit), then
 * the `resume` Update is sent from the UI (More Actions → Send an Update), and the order's page
 * and the list show it moved on. A screenshot of each step goes to test-artifacts/ui/.
 *
 * Not part of `npm test` (vitest includes test/**\/*.test.ts only). Exit code 1 on any failure,
 * with a screenshot of the page and the tail of dev's log. CHROMIUM_PATH overrides
 * /usr/bin/chromium; UI_TEST_HEADED=1 shows the browser.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  type Browser,
  chromium,
  errors,
  type FrameLocator,
  type Locator,
  type Page,
} from 'playwright-core';

import { eventually } from '../support/eventually.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ARTIFACTS = join(ROOT, 'test-artifacts', 'ui');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Stages an order reaches once it is paid: "moved on" from its interception. */
const MOVED_ON = ['AWAITING_SHIPMENT', 'SHIPPED', 'DELIVERED', 'COMPLETED'];
const MOVED_ON_RE = new RegExp(`^(${MOVED_ON.join('|')})\\b`);
/** dev's start: the Temporal CLI is provided before (CI runs `npx dropflow temporal-cli`). */
const DEV_START_MS = 180_000;
/** What the UI and the workflows take: a few seconds each, visibility included. */
const STEP_MS = 60_000;

const started = Date.now();
function say(line: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  process.stdout.write(`[ui ${seconds}s] ${line}\n`);
}

let shots = 0;
const screenshots: string[] = [];
async function screenshot(page: Page, name: string): Promise<void> {
  shots += 1;
  const file = join(ARTIFACTS, `${String(shots).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  screenshots.push(relative(ROOT, file));
  say(`  screenshot ${relative(ROOT, file)}`);
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

// ---- dropflow dev ------------------------------------------------------------------------------

/** Distinct free loopback ports (held together while picked, so none repeats). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((ok, fail) => {
          const server = createServer();
          server.once('error', fail);
          server.listen(0, '127.0.0.1', () => {
            ok(server);
          });
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  return ports;
}

interface Dev {
  ui: string;
  gateway: string;
  sandbox: string;
  token: string;
  log: string;
  stop(): Promise<void>;
}

/**
 * `dropflow dev` as a child process in a process group of its own (the Temporal server is its
 * child), ready once it printed its banner and its UI and gateway answer.
 */
async function startDev(dataDir: string): Promise<Dev> {
  const [temporalPort, uiPort, sandboxPort, gatewayPort] = await freePorts(4);
  const token = randomBytes(18).toString('base64url');
  const log = join(ARTIFACTS, 'dev.log');
  const out = createWriteStream(log);
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'dropflow.js'),
      'dev',
      '--data-dir',
      dataDir,
      '--temporal-port',
      String(temporalPort),
      '--ui-port',
      String(uiPort),
      '--sandbox-port',
      String(sandboxPort),
      '--gateway-port',
      String(gatewayPort),
      '--store-port',
      '0',
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GATEWAY_TOKEN: token, METRICS_PORT: '0', LOG_LEVEL: 'info' },
    },
  );
  let exited: string | undefined;
  const exit = new Promise<void>((ok) =>
    child.once('exit', (code, signal) => {
      exited = `exited (code ${code}, signal ${signal})`;
      ok();
    }),
  );
  let banner = '';
  child.stdout.on('data', (chunk: Buffer) => {
    banner += chunk.toString();
    out.write(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => out.write(chunk));

  const dev: Dev = {
    ui: `http://127.0.0.1:${uiPort}`,
    gateway: `http://127.0.0.1:${gatewayPort}`,
    sandbox: `http://127.0.0.1:${sandboxPort}`,
    token,
    log,
    stop: () => stopDev(child, exit, () => exited !== undefined).finally(() => out.end()),
  };
  try {
    await eventually(
      'dropflow dev to print that it is running',
      () => Promise.resolve(exited ?? banner),
      (seen) => exited !== undefined || seen.includes('dropflow dev is running:'),
      DEV_START_MS,
    );
    check(exited === undefined, `dropflow dev ${exited} before it was running (see ${log})`);
    await eventually(
      'the Temporal UI and the gateway to answer',
      async () =>
        [
          await status(`${dev.ui}/namespaces/default/workflows`),
          await status(`${dev.gateway}/readyz`),
        ].join(' '),
      (seen) => seen === '200 200',
      STEP_MS,
    );
  } catch (err) {
    await dev.stop();
    throw err;
  }
  return dev;
}

async function status(url: string): Promise<number> {
  return fetch(url).then(
    (res) => res.status,
    () => 0,
  );
}

/** SIGINT (dev stops its workers, gateway and server), then SIGKILL to the group if it hangs. */
async function stopDev(child: ChildProcess, exit: Promise<void>, gone: () => boolean) {
  const signal = (sig: NodeJS.Signals, pid = -child.pid!) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  if (!gone()) {
    signal('SIGINT', child.pid);
    const timer = setTimeout(() => {
      signal('SIGKILL');
    }, 30_000);
    await exit;
    clearTimeout(timer);
  }
  // Whatever dev left behind in its group (a Temporal server it could not stop).
  signal('SIGKILL');
}

// ---- the order ---------------------------------------------------------------------------------

async function api(
  dev: Dev,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${dev.gateway}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${dev.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

interface OrderStatus {
  stage: string;
  svcOrderId?: string;
  interception?: { step: string; reasons: { code: number; message: string }[] };
}

async function orderStatus(dev: Dev, orderNumber: string): Promise<OrderStatus> {
  const res = await api(dev, 'GET', `/v1/orders/${orderNumber}`);
  return res.status === 200 ? (res.body as OrderStatus) : { stage: `(HTTP ${res.status})` };
}

// ---- the UI ------------------------------------------------------------------------------------

/** The list's query box (the `</>` toggle beside the filters): what an operator types. */
async function searchWorkflows(page: Page, dev: Dev, query: string): Promise<void> {
  await page.goto(`${dev.ui}/namespaces/default/workflows`);
  // UI 2.54 prefixes these test ids with the list's id (`workflows-manual-search-input`).
  const input = page.locator('[data-testid$="manual-search-input"]').first();
  if (!(await input.isVisible())) await page.getByTestId('toggle-manual-query').click();
  await input.fill(query);
  await page.locator('[data-testid$="manual-search-button"]').first().click();
  await page.waitForURL((url) => url.searchParams.get('query') === query);
}

/**
 * The list's row of a workflow (its text, or `(not listed)`), searched again until visibility
 * shows it as `done` wants.
 */
async function listedRow(
  page: Page,
  dev: Dev,
  query: string,
  workflowId: string,
  done: (rowText: string) => boolean,
): Promise<Locator> {
  await searchWorkflows(page, dev, query);
  await page.getByTestId('workflows-summary-table-header-cell-Status').waitFor();
  const row = page
    .getByTestId('workflows-summary-configurable-table-row')
    .filter({ has: page.getByRole('link', { name: workflowId, exact: true }) });
  await eventually(
    `the list (${query}) to show ${workflowId} as expected`,
    async () => {
      const text = (await textOf(row)) ?? '(not listed)';
      // The list shows what visibility had when it loaded: load it again.
      if (!done(text)) await page.reload();
      return text;
    },
    done,
    STEP_MS,
    500,
  );
  return row;
}

/** The text of `locator` once it is there, or undefined when it does not come within `ms`. */
async function textOf(locator: Locator, ms = 5_000): Promise<string | undefined> {
  try {
    await locator.waitFor({ timeout: ms });
  } catch (err) {
    if (err instanceof errors.TimeoutError) return undefined;
    throw err;
  }
  return locator.innerText();
}

/**
 * One panel of the User Metadata tab (Summary, Current Details): the UI renders its markdown in
 * an iframe below the heading.
 */
function metadataPanel(page: Page, heading: string): FrameLocator {
  return page
    .getByRole('heading', { name: heading, exact: true })
    .locator('xpath=ancestor::div[.//iframe][1]')
    .frameLocator('iframe[title="output"]');
}

async function panelText(page: Page, heading: string): Promise<string> {
  const body = metadataPanel(page, heading).locator('body');
  return (await body.innerText({ timeout: STEP_MS })).trim();
}

async function openOrder(page: Page, workflowId: string): Promise<void> {
  await page.getByRole('link', { name: workflowId, exact: true }).first().click();
  await page.getByTestId('workflow-id-heading').filter({ hasText: workflowId }).waitFor();
}

/** The Current Details, refreshed ("Press the R for freshness") until `done` holds. */
async function currentDetails(page: Page, what: string, done: (text: string) => boolean) {
  await page.getByTestId('user-metadata-tab').click();
  await page.getByRole('heading', { name: 'Current Details', exact: true }).waitFor();
  return eventually(
    what,
    async () => {
      const text = await panelText(page, 'Current Details');
      if (!done(text)) await page.keyboard.press('r');
      return text;
    },
    done,
    STEP_MS,
    500,
  );
}

// ---- the path ----------------------------------------------------------------------------------

async function operatorPath(browser: Browser, dev: Dev): Promise<void> {
  const orderNumber = `UI-${Date.now().toString(36).toUpperCase()}`;
  const workflowId = `order:${orderNumber}`;
  const example = JSON.parse(
    await readFile(join(ROOT, 'examples', 'order-flow-b.json'), 'utf8'),
  ) as Record<string, unknown>;
  say(`submit ${orderNumber} (flow B, US zip ABCDE) through the gateway's intake`);
  const submitted = await api(dev, 'POST', '/v1/orders', {
    ...example,
    orderNumber,
    shippingZip: 'ABCDE',
  });
  check(
    submitted.status === 201,
    `intake answered ${submitted.status}: ${JSON.stringify(submitted.body)}`,
  );
  const stopped = await eventually(
    `${orderNumber} to stop at INTERCEPTED`,
    () => orderStatus(dev, orderNumber),
    (s) => s.stage === 'INTERCEPTED',
    STEP_MS,
    500,
  );
  check(
    stopped.interception?.reasons[0]?.code === 100102,
    `not 100102: ${JSON.stringify(stopped)}`,
  );
  say(`  ${stopped.stage} at ${stopped.interception.step}, supplier order ${stopped.svcOrderId}`);

  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  context.setDefaultTimeout(STEP_MS);
  const page = await context.newPage();
  try {
    const needsPerson = 'WorkflowType="fulfillOrder" AND NeedsAttention=true';
    say(`UI: the operator's list, query ${needsPerson}`);
    const row = await listedRow(
      page,
      dev,
      needsPerson,
      workflowId,
      (text) => text !== '(not listed)',
    );

    say('UI: column picker (gear below the list) → + FulfillmentStage, ^ until after Workflow ID');
    await page.getByTestId('workflows-summary-table-configuration-button').click();
    await page.getByTestId('orderable-list-item-FulfillmentStage-add-button').click();
    const headers = page.locator('[data-testid^="workflows-summary-table-header-cell-"]');
    const columns = async () =>
      Promise.all(
        (await headers.all()).map(async (cell) =>
          (await cell.getAttribute('data-testid'))?.replace(
            'workflows-summary-table-header-cell-',
            '',
          ),
        ),
      );
    await eventually(
      'the FulfillmentStage column right after Workflow ID',
      async () => {
        const now = await columns();
        if (now.indexOf('FulfillmentStage') > now.indexOf('Workflow ID') + 1) {
          await page.getByTestId('orderable-list-item-FulfillmentStage-move-up-button').click();
        }
        return now;
      },
      (now) => now.indexOf('FulfillmentStage') === now.indexOf('Workflow ID') + 1,
      STEP_MS,
      100,
    );
    await page.getByTestId('drawer-close-button').click();
    await page.getByTestId('drawer-close-button').waitFor({ state: 'hidden' });
    const rowText = await row.innerText();
    check(rowText.includes('INTERCEPTED'), `the row shows no INTERCEPTED: ${rowText}`);
    await screenshot(page, 'list-needs-attention');

    const intercepted = 'WorkflowType="fulfillOrder" AND FulfillmentStage="INTERCEPTED"';
    say(`UI: one stop, query ${intercepted}`);
    await listedRow(page, dev, intercepted, workflowId, (text) => text.includes('INTERCEPTED'));
    await screenshot(page, 'list-intercepted');

    say(`UI: open ${workflowId}`);
    await openOrder(page, workflowId);
    // The input is encrypted in Temporal; the UI shows it decoded through dev's codec endpoint.
    const decoded = `"orderNumber": "${orderNumber}"`;
    await eventually(
      'the workflow input shown decoded (the UI decodes through the gateway codec endpoint)',
      async () => {
        const text = await page.locator('main').innerText();
        return text.includes(decoded) ? decoded : text.slice(0, 1_000);
      },
      (text) => text === decoded,
      STEP_MS,
      250,
    );
    await screenshot(page, 'order-input-decoded');

    say('UI: User Metadata → Summary and Current Details');
    const details = await currentDetails(page, 'the reason in Current Details', (t) =>
      t.startsWith('INTERCEPTED'),
    );
    const reason = details.split('\n')[0]!;
    say(`  Current Details: ${reason}`);
    check(
      /^INTERCEPTED — intercepted at createOrderV3: 100102 .*zip.* — .*resume/i.test(reason),
      `unexpected reason line: ${reason}`,
    );
    check(
      details.includes(stopped.svcOrderId!),
      `Current Details do not name the supplier order ${stopped.svcOrderId}`,
    );
    const summary = await panelText(page, 'Summary');
    say(`  Summary: ${summary}`);
    check(summary.includes(`order ${orderNumber}, flow B`), `unexpected Summary: ${summary}`);
    await screenshot(page, 'order-intercepted-reason');

    say(`sandbox: the merchant fixes the zip of ${stopped.svcOrderId} at the supplier (90210)`);
    const edited = await fetch(
      `${dev.sandbox}/__sandbox/orders/${encodeURIComponent(stopped.svcOrderId!)}/edit`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ shippingZip: '90210' }),
      },
    );
    check(edited.status === 200, `sandbox edit answered ${edited.status}`);

    say('UI: More Actions → Send an Update → Name resume, Data {"by": "ui-operator"} → Submit');
    await page.getByRole('button', { name: 'More Actions' }).click();
    await page.getByRole('menuitem', { name: 'Send an Update' }).click();
    const dialog = page.getByRole('dialog').filter({ hasText: 'Send an Update' });
    await dialog.getByTestId('update-select-button').click();
    await dialog.getByRole('option', { name: 'resume', exact: true }).click();
    const editor = dialog.locator('.cm-content');
    await editor.click();
    const input = '{"by": "ui-operator"}';
    await page.keyboard.insertText(input);
    const typed = await editor.innerText();
    check(typed === input, `the Data editor holds ${JSON.stringify(typed)}`);
    await screenshot(page, 'send-update-resume');
    await dialog.getByTestId('confirm-modal-button').click();
    await page.getByText('Update successful').first().waitFor();
    say('  the UI says: Update successful');
    await screenshot(page, 'update-successful');

    say('UI: History → Workflow Execution Update Completed: the order took it');
    await page.getByTestId('history-tab').click();
    const completed = page.locator('tr', { hasText: 'Workflow Execution Update Completed' });
    const outcome = await eventually(
      'the Update Completed event in the History, decoded',
      async () => {
        const text = await textOf(completed.first());
        if (text === undefined) await page.reload();
        return text ?? '(none)';
      },
      (text) => text.includes('"accepted":'),
      STEP_MS,
      500,
    );
    const answer = outcome.slice(outcome.indexOf('{')).trim();
    say(`  outcome: ${answer}`);
    check(answer.startsWith('{"accepted":true'), `the order refused the resume: ${answer}`);
    await completed.first().scrollIntoViewIfNeeded();
    await screenshot(page, 'history-update-completed');

    const moved = await currentDetails(page, 'Current Details to show the order moved on', (t) =>
      MOVED_ON_RE.test(t),
    );
    say(`  Current Details: ${moved.split('\n')[0]}`);
    await screenshot(page, 'order-moved-on');

    // Listed only once visibility has it: off the operator's list, at its new stage.
    const mine = `WorkflowType="fulfillOrder" AND OrderNumber="${orderNumber}" AND NeedsAttention=false`;
    say(`UI: workflows list, query ${mine}`);
    const movedRow = await listedRow(page, dev, mine, workflowId, (text) =>
      MOVED_ON.some((stage) => text.includes(stage)),
    );
    say(`  row: ${(await movedRow.innerText()).replace(/\s+/g, ' ')}`);
    await screenshot(page, 'list-moved-on');

    const after = await orderStatus(dev, orderNumber);
    check(MOVED_ON.includes(after.stage), `the order's status says ${after.stage}`);
    check(after.interception === undefined, 'the interception is still in the order status');
    say(`status (gateway): ${after.stage}`);
  } catch (err) {
    await screenshot(page, 'failure').catch(() => undefined);
    throw err;
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  await rm(ARTIFACTS, { recursive: true, force: true });
  await mkdir(ARTIFACTS, { recursive: true });
  say(`Chromium ${CHROMIUM}`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: process.env.UI_TEST_HEADED !== '1',
  });
  say(`  version ${browser.version()}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'dropflow-ui-'));
  try {
    say(`dropflow dev on free ports, data dir ${dataDir}`);
    const dev = await startDev(dataDir);
    say(`  UI ${dev.ui}, gateway ${dev.gateway}, sandbox ${dev.sandbox}`);
    // dev runs in a process group of its own, which a Ctrl-C here does not reach.
    const interrupted = (signal: NodeJS.Signals) => {
      say(`${signal}: stopping dropflow dev`);
      void dev.stop().finally(() => process.exit(1));
    };
    process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
    try {
      await operatorPath(browser, dev);
    } finally {
      process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
      say('stopping dropflow dev');
      await dev.stop();
    }
  } finally {
    await browser.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => {
    say(`passed; screenshots:\n${screenshots.map((s) => `  ${s}`).join('\n')}`);
  },
  async (err: unknown) => {
    say(`FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    const log = await readFile(join(ARTIFACTS, 'dev.log'), 'utf8').catch(() => '');
    const tail = log.trimEnd().split('\n').slice(-30).join('\n');
    if (tail !== '')
      process.stdout.write(
        `--- last lines of ${relative(ROOT, join(ARTIFACTS, 'dev.log'))}\n${tail}\n`,
      );
    if (screenshots.length > 0) say(`screenshots:\n${screenshots.map((s) => `  ${s}`).join('\n')}`);
    process.exitCode = 1;
  },
);
