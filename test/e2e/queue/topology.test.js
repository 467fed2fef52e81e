'use strict';
// Queue-mode smoke: n8n 2.x main + 2 `n8n webhook` processes + 2 workers on Postgres + Redis
// (lib/queue.js). n8n's own Webhook node (respond at once, NoOp after it) takes 200 deliveries with
// unique ids over both webhook processes (lib/sender.js); every one must be answered 2xx and become
// exactly one successful execution in Postgres. Then a webhook process is restarted (SIGTERM) and a
// worker killed (SIGKILL) and started again, and the topology must still execute deliveries.
const crypto = require('node:crypto');
const { log } = require('../lib/install');
const { useQueueTopology } = require('../lib/queue');
const { send } = require('../lib/sender');
const { versions } = require('../lib/suite');
const W = require('../lib/workflows');

const DELIVERIES = 200;
const RUN = crypto.randomBytes(4).toString('hex');
const qid = (i) => `qid-${RUN}-${String(i).padStart(5, '0')}`;
const QID_PATTERN = `qid-${RUN}-[0-9]{5}`;

function delivery(i) {
	return {
		id: qid(i),
		body: JSON.stringify({ qid: qid(i), event: 'queue.smoke', n: i }),
		headers: { 'content-type': 'application/json', 'x-delivery-id': qid(i) },
	};
}

/** { qid: number of successful executions whose data holds it } for a workflow, from Postgres. */
async function executionsPerId(topology, workflowId) {
	const rows = await topology.pgQuery(`
		select x.qid, count(distinct x.id) as n from (
			select e.id, (regexp_matches(d.data, '${QID_PATTERN}', 'g'))[1] as qid
			from execution_entity e join execution_data d on d."executionId" = e.id
			where e."workflowId" = '${workflowId}' and e.status = 'success'
		) x group by x.qid`);
	return Object.fromEntries(rows.map((r) => [r.qid, Number(r.n)]));
}

/** Sends `ids`, waits until the workflow has `total` finished executions; checks each id ran once. */
async function sendAndCheck(topology, wf, ids, total) {
	const { totals, records } = await send({
		urls: topology.webhookUrls.map((u) => `${u}/webhook/${wf.path}`),
		deliveries: ids.map(delivery),
		concurrency: 16,
		retry: { maxAttempts: 6, backoffMs: 200 },
	});
	const failed = records.filter((r) => !r.ok).map((r) => ({ id: r.id, attempts: r.attempts }));
	expect(failed).toEqual([]);
	expect(totals.answered2xx).toBe(ids.length);
	const counts = await topology.waitForExecutions(wf.id, { count: total, timeoutMs: 180000 });
	const perId = await executionsPerId(topology, wf.id);
	return { totals, counts, perId };
}

const describeV2 = versions().includes('2') ? describe : describe.skip;

describeV2('n8n 2.x queue mode: main + 2 webhook processes + 2 workers', () => {
	const ctx = useQueueTopology({ major: '2', webhooks: 2, workers: 2, workerConcurrency: 10 });
	const wf = {};

	beforeAll(async () => {
		const t = ctx.topology;
		log(`queue topology start-up: ${JSON.stringify(t.timings)}`);
		wf.path = W.uniquePath('queue-smoke');
		const webhook = W.webhookNode({ path: wf.path, responseMode: 'onReceived' });
		const noOp = {
			id: crypto.randomUUID(),
			name: 'NoOp',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [220, 0],
			parameters: {},
		};
		const started = Date.now();
		// Activated through main; waits until both webhook processes know the path.
		const created = await t.main.deployWorkflow(W.workflow(`queue smoke ${RUN}`, [webhook, noOp]));
		wf.id = created.id;
		log(`workflow ${wf.id} active on both webhook processes in ${Date.now() - started} ms`);
	}, 120000);

	test(`${DELIVERIES} deliveries over both webhook processes: all answered 2xx, each executed exactly once`, async () => {
		const t = ctx.topology;
		const ids = Array.from({ length: DELIVERIES }, (_, i) => i);
		const started = Date.now();
		const { totals, counts, perId } = await sendAndCheck(t, wf, ids, DELIVERIES);
		const executedMs = Date.now() - started;
		log(
			`${DELIVERIES} deliveries: ${totals.deliveriesPerSecond.toFixed(1)} deliveries/s answered ` +
				`(ack p50 ${totals.ackP50Ms.toFixed(0)} ms, p99 ${totals.ackP99Ms.toFixed(0)} ms, ${totals.attempts} attempts, ` +
				`per URL ${JSON.stringify(Object.values(totals.byUrl))}); all executed after ${executedMs} ms ` +
				`(${((DELIVERIES * 1000) / executedMs).toFixed(1)} executions/s)`,
		);
		// Both webhook processes took deliveries.
		for (const n of Object.values(totals.byUrl)) expect(n).toBeGreaterThan(0);
		// Settle: a late duplicate would still show up.
		await new Promise((r) => setTimeout(r, 1000));
		expect(await t.executionStatusCounts(wf.id)).toEqual({ success: DELIVERIES });
		expect(counts).toEqual({ success: DELIVERIES });
		const final = await executionsPerId(t, wf.id);
		expect(Object.keys(final).sort()).toEqual(ids.map(qid));
		expect(Object.entries(final).filter(([, n]) => n !== 1)).toEqual([]);
		expect(perId).toEqual(final);
	}, 600000);

	test('after a webhook process restart (SIGTERM) and a worker killed (SIGKILL) and restarted, deliveries still execute', async () => {
		const t = ctx.topology;
		const before = { webhookPid: t.webhooks[0].pid, workerPid: t.workers[1].pid };

		const restart = await t.restartWebhook(0, { signal: 'SIGTERM' });
		log(`webhook-0 restarted in ${restart.ms} ms (stop ${JSON.stringify(restart.stop)})`);
		expect(restart.stop.graceful).toBe(true);
		expect(t.webhooks[0].pid).not.toBe(before.webhookPid);

		const killed = await t.killWorker(1);
		expect(killed.exited).toEqual({ code: null, signal: 'SIGKILL' });
		// Worker 0 alone, deliveries on both webhook processes (the restarted one included).
		let r = await sendAndCheck(t, wf, [DELIVERIES, DELIVERIES + 1], DELIVERIES + 2);
		expect(r.counts).toEqual({ success: DELIVERIES + 2 });

		const workerStarted = Date.now();
		await t.startWorker(1);
		log(`worker-1 started again in ${Date.now() - workerStarted} ms`);
		expect(t.workers[1].pid).not.toBe(before.workerPid);
		// Stop worker 0 so that the restarted worker 1 has to run the next deliveries.
		await t.killWorker(0);
		r = await sendAndCheck(t, wf, [DELIVERIES + 2, DELIVERIES + 3], DELIVERIES + 4);
		expect(r.counts).toEqual({ success: DELIVERIES + 4 });
		const all = Array.from({ length: DELIVERIES + 4 }, (_, i) => qid(i));
		expect(Object.keys(r.perId).sort()).toEqual(all);
		expect(Object.entries(r.perId).filter(([, n]) => n !== 1)).toEqual([]);

		const errors = t
			.logs()
			.split('\n')
			.filter((l) => /"level":"error"/.test(l));
		log(
			`error-level log lines across the topology: ${errors.length}${errors.length ? `, first: ${errors[0].slice(0, 300)}` : ''}`,
		);
	}, 600000);
});
