'use strict';
// Issue 41 in a real n8n: a delivery's fate follows its execution, not its connection. The sender
// (a proxy's timeout, a load balancer, the service's own client) hangs up at several moments:
// before the body is read, right after sending, while the workflow runs (a 2-second Wait after the
// trigger). Then it sends the same delivery again every 300 ms, as a service retrying would, until
// it gets a 2xx. Each delivery must run exactly once (a body cut off before it was read: once, by a
// retry), and the retry must get its 2xx within the run's time plus a margin: never 409 for good.
const crypto = require('node:crypto');
const http = require('node:http');
const { sleep } = require('./lib/http');
const { useN8n, versions } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');
const D = require('./lib/deliveries');

const TRIGGER = 'Consent Flow Trigger';
// The figures run (docs/queue-mode.md): deliveries per Respond mode, and the share of attempts that hang up.
const LOAD = Number(process.env.SBL_HANGUP_LOAD || 100); // npm run bench:queue: 1000
const HANG_UPS = { share: 0.2, maxMs: 80, seed: 41 };
const SIGNING = 'consentFlowWebhookSigningApi';
const RUN_MS = 2000;

/** Sends `body`, or only its first `partial` bytes, and destroys the connection after `ms`. */
function hangUp(url, body, headers, { ms, partial }) {
	return new Promise((resolve) => {
		const req = http.request(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'content-length': body.length, ...headers },
		});
		let status = null;
		req.on('response', (res) => {
			status = res.statusCode;
			res.resume();
		});
		req.on('error', () => {});
		const drop = () => setTimeout(() => (req.destroy(), resolve(status)), ms);
		if (partial === undefined) req.end(body, drop);
		else req.write(body.subarray(0, partial), drop);
	});
}

/** The service's retries: the same bytes every 300 ms until a 2xx; returns the answers and the time. */
async function retryUntil2xx(url, body, headers, limitMs) {
	const started = Date.now();
	const answers = [];
	while (Date.now() - started < limitMs) {
		const { records } = await require('./lib/sender').send({
			urls: [url],
			deliveries: [{ id: 'r', body, headers }],
			concurrency: 1,
			retry: { maxAttempts: 1 },
		});
		answers.push(`${records[0].status} ${D.ackStatus(records[0]) ?? ''}`.trim());
		if (records[0].status >= 200 && records[0].status < 300)
			return { answers, ms: Date.now() - started };
		await sleep(300);
	}
	return { answers, ms: null };
}

const MOMENTS = [
	{ name: 'before the body is read', ms: 0, partial: 20 },
	{ name: 'right after sending (5 ms)', ms: 5 },
	{ name: 'right after sending (30 ms)', ms: 30 },
	{ name: 'while the workflow runs (150 ms)', ms: 150 },
];

describe.each(versions())('n8n %s.x: the sender hangs up', (major) => {
	const ctx = useN8n(major);
	const SECRET = crypto.randomBytes(24).toString('hex');
	const deployed = {};

	beforeAll(async () => {
		const { n8n } = ctx;
		const cred = await n8n.createCredential({
			name: 'Hang-up signing',
			type: SIGNING,
			data: { secret: SECRET, signatureHeader: '' },
		});
		for (const respond of ['lastNode', 'onReceived']) {
			for (const slow of [true, false]) {
				const trigger = W.packageTriggerNode({
					name: TRIGGER,
					credentials: { [SIGNING]: cred },
					parameters: { respond, outputMode: 'single' },
				});
				const wait = {
					id: crypto.randomUUID(),
					name: 'Two Seconds',
					type: 'n8n-nodes-base.wait',
					typeVersion: 1.1,
					position: [300, 0],
					parameters: { amount: RUN_MS / 1000, unit: 'seconds' },
				};
				const nodes = slow ? [trigger, wait] : [trigger];
				const wf = await n8n.deployWorkflow(
					W.workflow(`hang-up ${respond} ${crypto.randomBytes(3).toString('hex')}`, nodes),
					{
						webhookPaths: [W.triggerWebhookPath(trigger)],
					},
				);
				deployed[`${respond}${slow ? '' : '-load'}`] = {
					id: wf.id,
					path: W.triggerWebhookPath(trigger),
					url: n8n.webhookUrl(W.triggerWebhookPath(trigger)),
				};
			}
		}
	}, 180000);

	it.each(['lastNode', 'onReceived'])(
		'Respond %s: every delivery runs once and its next copy gets a 2xx',
		async (respond) => {
			const { id: workflowId, url } = deployed[respond];
			const tag = `hu${crypto.randomBytes(3).toString('hex')}`;
			const report = [];
			for (const [i, moment] of MOMENTS.entries()) {
				const [d] = D.signedDeliveries({ count: 1, secret: SECRET, tag: `${tag}-${i}` });
				const first = await hangUp(url, d.body, d.headers, moment);
				await sleep(moment.ms === 0 ? 50 : 0);
				const retry = await retryUntil2xx(url, d.body, d.headers, RUN_MS + 15000);
				report.push({ moment: moment.name, id: d.id, first, retries: retry.answers, ms: retry.ms });
			}
			// every delivery: a 2xx within the run's time plus a margin, then exactly one successful run
			expect(report.filter((r) => r.ms === null)).toEqual([]);
			let executions = [];
			const until = Date.now() + 30000;
			while (Date.now() < until) {
				executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: true });
				if (executions.length >= MOMENTS.length && executions.every((e) => e.stoppedAt)) break;
				await sleep(500);
			}
			await sleep(RUN_MS + 1000);
			executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: true });
			const ledger = L.deliveryLedger(executions, TRIGGER);
			const runs = report.map((r) => [
				r.moment,
				(ledger.get(r.id) || []).filter((e) => e.status === 'success').length,
			]);
			expect(runs).toEqual(MOMENTS.map((m) => [m.name, 1]));
			expect(executions.length).toBe(MOMENTS.length);
			console.log(`hang-up (n8n ${ctx.n8n.version}, ${respond}): ${JSON.stringify(report)}`);
		},
		240000,
	);

	it.each(['lastNode', 'onReceived'])(
		`Respond %s: ${LOAD} deliveries, ${HANG_UPS.share * 100} % of attempts hang up 0-${HANG_UPS.maxMs} ms after sending and are retried: 0 lost, 0 twice, 0 stuck`,
		async (respond) => {
			const { id: workflowId, url } = deployed[`${respond}-load`];
			const deliveries = D.signedDeliveries({
				count: LOAD,
				secret: SECRET,
				tag: `hl${crypto.randomBytes(3).toString('hex')}`,
			});
			const { records, totals } = await require('./lib/sender').send({
				urls: [url],
				deliveries,
				concurrency: 16,
				retry: { maxAttempts: 14, backoffMs: 100 },
				hangUps: HANG_UPS,
			});
			let executions = [];
			const until = Date.now() + 120000;
			while (Date.now() < until) {
				executions = await L.allExecutions(ctx.n8n, workflowId, {
					includeData: false,
					pageSize: 250,
				});
				if (executions.length >= LOAD && executions.every((e) => e.stoppedAt)) break;
				await sleep(1000);
			}
			await sleep(1000);
			executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: true, pageSize: 100 });
			const ledger = L.deliveryLedger(executions, TRIGGER);
			const runs = deliveries.map(
				(d) => (ledger.get(d.id) || []).filter((e) => e.status === 'success').length,
			);
			const figures = {
				n8n: ctx.n8n.version,
				respond,
				deliveries: LOAD,
				attempts: totals.attempts,
				hungUp: records.flatMap((r) => r.attempts).filter((a) => a.error === 'hung-up').length,
				answered409: records.flatMap((r) => r.attempts).filter((a) => a.status === 409).length,
				lost: runs.filter((n) => n === 0).length,
				twice: runs.filter((n) => n > 1).length,
				stuck: totals.gaveUp,
				executions: executions.length,
			};
			console.log(`hang-up load: ${JSON.stringify(figures)}`);
			expect([figures.lost, figures.twice, figures.stuck]).toEqual([0, 0, 0]);
			expect(figures.hungUp).toBeGreaterThan(LOAD * HANG_UPS.share * 0.5);
			expect(executions.length).toBe(LOAD);
		},
		600000,
	);
	// Issue 50: the key a delivery's answer decides is in the database before that answer is written.
	it('an answered delivery is a duplicate after n8n restarts on the same database, under each Respond mode', async () => {
		const send = async (url, d) => {
			const { records } = await require('./lib/sender').send({
				urls: [url],
				deliveries: [d],
				concurrency: 1,
				retry: { maxAttempts: 1 },
			});
			return `${records[0].status} ${D.ackStatus(records[0]) ?? ''}`.trim();
		};
		const modes = ['lastNode', 'onReceived'].map((respond) => ({
			respond,
			...deployed[`${respond}-load`],
			d: D.signedDeliveries({
				count: 1,
				secret: SECRET,
				tag: `rs${crypto.randomBytes(3).toString('hex')}`,
			})[0],
		}));
		for (const m of modes) m.first = (await send(m.url, m.d)).slice(0, 3);
		// no pause: the restart follows the answers at once
		await ctx.n8n.restart();
		for (const m of modes) await ctx.n8n.waitForWebhook(m.path);
		for (const m of modes) m.again = await send(m.url, m.d);
		const runsOf = async (m) => {
			const executions = await L.allExecutions(ctx.n8n, m.id, { includeData: true });
			return (L.deliveryLedger(executions, TRIGGER).get(m.d.id) || []).length;
		};
		const seen = [];
		for (const m of modes) seen.push([m.respond, m.first, m.again, await runsOf(m)]);
		expect(seen).toEqual(modes.map((m) => [m.respond, '200', '200 duplicate', 1]));
	}, 240000);
});
