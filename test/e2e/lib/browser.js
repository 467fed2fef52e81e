'use strict';
// The n8n editor in a real browser: Debian's `chromium` (installed with apt when missing, like
// Postgres and Redis in services.js — a browser download at install time fails here) driven by
// puppeteer-core (which downloads nothing). The browser is a child of the test process: close()
// kills it, and so does the exit of the test process.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { aptInstall } = require('./services');

const CHROMIUM = process.env.SBL_CHROMIUM || '/usr/bin/chromium';
const VIEWPORT = { width: 1600, height: 1000 };
// The README's screenshots are rewritten only when asked (SBL_SCREENSHOTS=1): a test run leaves the tree clean.
const SCREENSHOTS =
	process.env.SBL_SCREENSHOTS === '1'
		? path.resolve(__dirname, '../../../docs/screenshots')
		: path.join(os.tmpdir(), 'sbl-e2e-screenshots');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function ensureChromium() {
	await aptInstall('chromium', () => fs.existsSync(CHROMIUM));
	return CHROMIUM;
}

/** Launches the browser; collects console errors and page errors of every page it opens. */
async function launchBrowser() {
	const puppeteer = require('puppeteer-core');
	const executablePath = await ensureChromium();
	const browser = await puppeteer.launch({
		executablePath,
		headless: true,
		args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
		defaultViewport: VIEWPORT,
	});
	const proc = browser.process();
	const killOnExit = () => proc?.kill('SIGKILL');
	process.once('exit', killOnExit);
	const errors = [];
	const page = await browser.newPage();
	page.on('console', (message) => {
		if (message.type() === 'error') errors.push({ where: page.url(), text: message.text() });
	});
	page.on('pageerror', (error) =>
		errors.push({ where: page.url(), text: String(error?.stack ?? error) }),
	);
	return {
		browser,
		page,
		errors,
		async close() {
			process.removeListener('exit', killOnExit);
			await browser.close().catch(() => proc?.kill('SIGKILL'));
		},
	};
}

/** Signs in as the owner the harness created (the e-mail field, the password, Enter). */
async function signIn(page, n8n) {
	await page.goto(`${n8n.url}/signin`, { waitUntil: 'networkidle2' });
	await page.waitForSelector('input[name="emailOrLdapLoginId"]', { timeout: 30000 });
	await page.type('input[name="emailOrLdapLoginId"]', n8n.ownerEmail);
	await page.type('input[type="password"]', n8n.ownerPassword);
	await page.keyboard.press('Enter');
	await page.waitForFunction(() => !location.pathname.startsWith('/signin'), { timeout: 30000 });
}

/** Opens a workflow's canvas and waits until its nodes are drawn (first-run pop-ups closed). */
async function openWorkflow(page, n8n, id, nodeCount) {
	await page.goto(`${n8n.url}/workflow/${id}`, { waitUntil: 'networkidle2' });
	await page.waitForFunction(
		(count) => document.querySelectorAll('[data-test-id="canvas-node"]').length >= count,
		{ timeout: 30000 },
		nodeCount,
	);
	await page.keyboard.press('Escape');
	await drawnStill(page, '[data-test-id="canvas-node"]');
}

/**
 * Waits until the boxes of what `selector` matches are the same in four looks 250 ms apart (the
 * canvas fits its view, a panel fills in), 5 s at most.
 */
async function drawnStill(page, selector) {
	const look = () =>
		page.evaluate(
			(sel) =>
				JSON.stringify(
					[...document.querySelectorAll(sel)].map((e) => {
						const r = e.getBoundingClientRect();
						return [r.left, r.top, r.width, r.height];
					}),
				),
			selector,
		);
	let last = await look();
	let same = 0;
	for (const until = Date.now() + 5000; same < 3 && Date.now() < until; ) {
		await sleep(250);
		const now = await look();
		same = now === last ? same + 1 : 0;
		last = now;
	}
}

/** Double-clicks a node on the canvas and waits for its panel's parameters. */
async function openNode(page, name) {
	const node = await page.$(
		`[data-test-id="canvas-node"][data-node-name="${name.replace(/"/g, '\\"')}"]`,
	);
	if (!node) throw new Error(`no node "${name}" on the canvas`);
	await node.click({ count: 2 });
	await page.waitForSelector('[data-test-id="node-parameters"]', { timeout: 15000 });
	await drawnStill(page, '[data-test-id="node-parameters"] [data-test-id="parameter-item"]');
}

async function closeNode(page) {
	await page.keyboard.press('Escape');
	await page
		.waitForFunction(() => !document.querySelector('[data-test-id="ndv"]'), { timeout: 10000 })
		.catch(() => {});
	await sleep(300);
}

/** Opens a credential's form (and its connection test, which n8n runs when the form opens). */
async function openCredential(page, n8n, id) {
	await page.goto(`${n8n.url}/home/credentials/${id}`, { waitUntil: 'networkidle2' });
	await page.waitForSelector('[data-test-id="credential-edit-dialog"]', { timeout: 30000 });
	await sleep(2500);
}

async function screenshot(page, name) {
	fs.mkdirSync(SCREENSHOTS, { recursive: true });
	const file = path.join(SCREENSHOTS, `${name}.png`);
	await page.screenshot({ path: file });
	return file;
}

/** A close-up: the drawn box of the first element matching `selector` (with `pad` px around), at twice the pixels. */
async function screenshotAround(page, selector, name, pad = 40) {
	fs.mkdirSync(SCREENSHOTS, { recursive: true });
	const box = await page.evaluate((sel) => {
		const el = document.querySelector(sel);
		if (!el) return null;
		const rects = [el, ...el.querySelectorAll('*')]
			.map((e) => e.getBoundingClientRect())
			.filter((r) => r.width > 0 && r.height > 0);
		const left = Math.min(...rects.map((r) => r.left));
		const top = Math.min(...rects.map((r) => r.top));
		return {
			left,
			top,
			right: Math.max(...rects.map((r) => r.right)),
			bottom: Math.max(...rects.map((r) => r.bottom)),
		};
	}, selector);
	if (box === null) throw new Error(`nothing matches ${selector}`);
	const x = Math.max(0, box.left - pad);
	const y = Math.max(0, box.top - pad);
	const file = path.join(SCREENSHOTS, `${name}.png`);
	await page.screenshot({
		path: file,
		clip: { x, y, width: box.right + pad - x, height: box.bottom + pad - y, scale: 2 },
	});
	return file;
}

module.exports = {
	screenshotAround,
	SCREENSHOTS,
	ensureChromium,
	launchBrowser,
	signIn,
	openWorkflow,
	openNode,
	closeNode,
	openCredential,
	screenshot,
	sleep,
};
