'use strict';
// Nothing answered is lost, in one n8n on SQLite (the default install): a burst of 2,000 requests
// from 10 concurrent senders — validly signed deliveries of all ten events with odd ids, deep
// nesting and bodies of up to 5 MB, copies of some of them sent again in the middle of the burst, and wrongly signed ones —
// against the trigger as users install it. The sender behaves like the service: it retries
// anything that is not 2xx. Afterwards, read back through n8n's public API: every delivery
// answered 2xx as "emitted" has exactly one successful execution carrying it, on its own output;
// no id ran twice; nothing wrongly signed ran. (Issue 16: with the trigger answering before n8n
// stored the execution, this burst ended with 1,099 deliveries answered "emitted" and 843
// executions.) Issue 26: signed bodies nested deeper than 64 levels (too deep to parse: they go
// to Unrecognised) had no remembered id, so each copy ran again (232 such deliveries gave 321
// executions); they are in the burst now, each sent twice or more, and every delivery answered
// "emitted" must have run exactly once. Figures are printed, not asserted.
const crypto = require('node:crypto');
const { sleep } = require('./lib/http');
const { useN8n, versions } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');
const D = require('./lib/deliveries');
const { send } = require('./lib/sender');

const TRIGGER = 'Consent Flow Trigger';
const SIGNING = 'consentFlowWebhookSigningApi';
// Sizes (environment overrides for exploring: SBL_BURST_VALID, _COPIES, _WRONG, _SENDERS, _LARGE_EVERY).
const num = (name, fallback) => Number(process.env[`SBL_BURST_${name}`] || fallback);
const VALID = num('VALID', 200);
const COPIES = num('COPIES', 50);
const WRONG = num('WRONG', 100);
const SENDERS = num('SENDERS', 10);
const LARGE_EVERY = num('LARGE_EVERY', 25);
// Every DEEP_EVERY-th delivery is nested 100 levels deep (SBL_BURST_DEEP_EVERY).
const DEEP_EVERY = num('DEEP_EVERY', 20);
const MB = 1024 * 1024;

function shapeOf(i) {
	if (i % LARGE_EVERY === 7) return 'large';
	if (i % DEEP_EVERY === 13 % DEEP_EVERY) return 'deep';
	if (i % 20 === 3) return 'nested';
	if (i % 20 === 5) return 'number';
	if (i % 20 === 9) return 'unicode';
	return 'plain';
}

describe.each(versions())(
	'n8n %s.x on SQLite: a burst of signed deliveries, odd shapes and copies — nothing answered is lost',
	(major) => {
		const ctx = useN8n(major);
		const secret = crypto.randomBytes(24).toString('hex');
		let url;
		let workflowId;

		beforeAll(async () => {
			const { n8n } = ctx;
			const cred = await n8n.createCredential({
				name: 'Burst signing',
				type: SIGNING,
				data: { secret, signatureHeader: '' },
			});
			// Remembered Deliveries above the number of ids sent: a copy of an id pushed out of the
			// memory would rightly run again (the documented limit), which is not what is measured.
			const trigger = W.packageTriggerNode({
				name: TRIGGER,
				parameters: { rememberedDeliveries: 10000 },
				credentials: { [SIGNING]: cred },
			});
			const wf = await n8n.deployWorkflow(
				W.workflow(`burst ${crypto.randomBytes(3).toString('hex')}`, [trigger], {}),
				{
					webhookPaths: [W.triggerWebhookPath(trigger)],
				},
			);
			workflowId = wf.id;
			url = n8n.webhookUrl(W.triggerWebhookPath(trigger));
		}, 120000);

		it('every delivery answered "emitted" ran exactly once, successfully, on its own output', async () => {
			const tag = `b${crypto.randomBytes(3).toString('hex')}`;
			// Large bodies: 1 to 5 MB.
			const valid = D.signedDeliveries({ count: VALID, secret, tag, shapes: shapeOf }).map(
				(d, i) =>
					d.shape === 'large'
						? D.signedDeliveries({
								count: 1,
								secret,
								tag: `${tag}L${i}`,
								shapes: () => 'large',
								largeBytes: (1 + (i % 5)) * MB,
							})[0]
						: d,
			);
			// Copies: the first COPIES that are not large, and every too-deep one once more.
			const copies = [
				...valid.filter((d) => d.shape !== 'large').slice(0, COPIES),
				...valid.filter((d) => d.shape === 'deep'),
			];
			const wrong = valid.slice(0, WRONG).map((d) => D.withWrongSignature(d, `${secret}-old`));
			const signed = D.shuffle([...valid, ...copies], 0x5b1);

			const [good, bad] = await Promise.all([
				send({
					urls: [url],
					deliveries: signed,
					concurrency: SENDERS - 2,
					retry: { maxAttempts: 10, backoffMs: 200 },
				}),
				send({ urls: [url], deliveries: wrong, concurrency: 2, retry: { maxAttempts: 1 } }),
			]);

			// The wrongly signed: all 401, none ran.
			expect(bad.records.map((r) => r.status).filter((s) => s !== 401)).toEqual([]);
			// Every validly signed delivery was answered 2xx in the end (the sender retried the rest).
			expect(good.records.filter((r) => !r.ok).map((r) => [r.id, r.status, r.error])).toEqual([]);

			const emittedRecords = good.records.filter((r) => D.ackStatus(r) === 'emitted');
			const emittedIds = new Set(emittedRecords.map((r) => r.id));
			const statuses = good.records.map(D.ackStatus);
			expect(statuses.filter((s) => s !== 'emitted' && s !== 'duplicate')).toEqual([]);

			// Wait until n8n has finished everything it took (or nothing changed for 20 s: what never
			// ran must show as lost below, not as a time-out), then read every execution back.
			let executions = [];
			let last = '';
			let stableSince = Date.now();
			const until = Date.now() + 240000;
			while (Date.now() < until) {
				executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: false });
				const open = executions.filter((e) => !e.stoppedAt).length;
				const key = `${executions.length}/${open}`;
				if (key !== last) {
					last = key;
					stableSince = Date.now();
				}
				if (executions.length >= emittedIds.size && open === 0) break;
				if (Date.now() - stableSince > 20000) break;
				await sleep(1000);
			}
			executions = await L.allExecutions(ctx.n8n, workflowId, { includeData: true, pageSize: 50 });
			const ledger = L.deliveryLedger(executions, TRIGGER);
			const byId = new Map(valid.map((d) => [d.id, d]));

			const lost = [...emittedIds].filter(
				(id) => !(ledger.get(id) || []).some((e) => e.status === 'success'),
			);
			const twice = [...ledger.entries()].filter(([, list]) => list.length > 1).map(([id]) => id);
			const notSuccess = executions
				.filter((e) => e.status !== 'success')
				.map((e) => [e.id, e.status]);
			const misrouted = [...ledger.entries()]
				.filter(([id]) => byId.has(id))
				.filter(([id, list]) => list.some((e) => e.output !== byId.get(id).output))
				.map(([id]) => id);
			const strangers = [...ledger.keys()].filter((id) => !byId.has(id));

			// Issue 26: every delivery answered "emitted" ran exactly once (not zero, not twice): one
			// execution in all, a successful one — too-deep bodies included.
			const notExactlyOnce = emittedRecords
				.map((r) => [r.id, (ledger.get(r.id) || []).map((e) => e.status)])
				.filter(([, list]) => list.length !== 1 || list[0] !== 'success');
			// Two answers "emitted" for one id would mean a copy was let through.
			const emittedTwice = emittedRecords.length - emittedIds.size;
			const deep = valid.filter((d) => d.shape === 'deep');
			const deepExecutions = deep.reduce((n, d) => n + (ledger.get(d.id) || []).length, 0);

			const logs = ctx.n8n.logs();
			console.log(
				`burst (n8n ${ctx.n8n.version}, SQLite): ${good.records.length} signed (${valid.length} unique, ${copies.length} copies) + ${wrong.length} wrongly signed, ` +
					`${good.totals.attempts + bad.totals.attempts} requests; ${emittedIds.size} emitted, ${executions.length} executions; ` +
					`${good.totals.deliveriesPerSecond.toFixed(1)} signed deliveries/s, ack p50/p99 ${good.totals.ackP50Ms.toFixed(0)}/${good.totals.ackP99Ms.toFixed(0)} ms, ` +
					`${good.totals.retried} retried; SQLITE_BUSY in the log: ${(logs.match(/SQLITE_BUSY/g) || []).length}; ` +
					`too deep: ${deep.length} deliveries (${deep.length * 2} or more sent), ${deepExecutions} executions`,
			);

			expect(notExactlyOnce).toEqual([]);
			expect(emittedTwice).toBe(0);
			expect(deepExecutions).toBe(deep.length);

			expect(lost).toEqual([]);
			expect(twice).toEqual([]);
			expect(notSuccess).toEqual([]);
			expect(misrouted).toEqual([]);
			expect(strangers).toEqual([]);
			// Every unique delivery ran once (its copies were duplicates, or it was the copy that ran).
			expect(emittedIds.size).toBe(valid.length);
			expect(executions.length).toBe(valid.length);
			// The exact payload arrived (the large ones compared by length and content).
			const sample = executions.find((e) => L.triggerRun(e, TRIGGER).items[0]?.json.payload?.blob);
			const { json } = L.triggerRun(sample, TRIGGER).items[0];
			expect(JSON.parse(byId.get(json.webhookId).body.toString('utf8')).payload.blob).toBe(
				json.payload.blob,
			);
		}, 600000);
	},
);
