'use strict';
// Part 2 of `npm run bench:n8n`: signed deliveries to the trigger and to the receivers a user
// builds from n8n's own nodes, and the same again in a second n8n with the lazy expression engine.

const crypto = require('node:crypto');

const { log } = require('../../test/e2e/lib/install');
const { startN8n } = require('../../test/e2e/lib/n8n');
const B = require('./n8n-workflows');
const M = require('./n8n-measure');
const R = require('./n8n-report');
const { running } = require('./n8n-processes');
const { groupCpuSeconds } = require('./proc-cpu');

// ---- webhook comparison ------------------------------------------------------------------------------

async function compareReceivers(ctx, { opts, webhookVersion }) {
	const { n8n, sim } = ctx;
	const signing = await n8n.createCredential({
		name: 'bench signing',
		type: 'consentFlowWebhookSigningApi',
		data: { secret: sim.signingSecret, signatureHeader: '' },
	});
	const headerValue = crypto.randomBytes(24).toString('base64url');
	const headerAuth = await n8n.createCredential({
		name: 'bench header auth',
		type: 'httpHeaderAuth',
		data: { name: 'X-Bench-Token', value: headerValue },
	});
	const sides = [
		{
			label: 'Consent Flow Trigger (defaults; 11 outputs → NoOp)',
			ours: true,
			built: B.triggerWorkflow({ cred: signing }),
		},
		...(opts.dedupeOff
			? [
					{
						label: 'Consent Flow Trigger, Ignore Duplicate Deliveries off',
						ours: true,
						variant: true,
						built: B.triggerWorkflow({ cred: signing, ignoreDuplicates: false }),
					},
				]
			: []),
		...(opts.rememberedVariant
			? [
					{
						label: `Consent Flow Trigger, Remembered Deliveries ${opts.rememberedVariant}`,
						ours: true,
						variant: true,
						built: B.triggerWorkflow({
							cred: signing,
							rememberedDeliveries: opts.rememberedVariant,
						}),
					},
				]
			: []),
		{
			label: 'Webhook, respond immediately → NoOp',
			built: B.bareWebhookWorkflow({ webhookVersion }),
		},
		{
			label: 'Webhook + Header Auth, respond immediately → NoOp',
			built: B.bareWebhookWorkflow({ webhookVersion, headerAuthCred: headerAuth }),
			headers: { 'x-bench-token': headerValue },
		},
		{
			label:
				'Webhook (raw body, respond immediately) → Code (HMAC-SHA256, constant time) → Switch (11 outputs) → NoOp',
			built: B.diyWorkflow({
				webhookVersion,
				secret: sim.signingSecret,
				signatureHeader: sim.signatureHeader,
			}),
		},
	];
	let offset = 0;
	for (const side of sides) {
		const created = await n8n.deployWorkflow(side.built.workflow, {
			webhookPaths: [side.built.path],
		});
		side.receiver = {
			url: n8n.webhookUrl(side.built.path),
			headers: side.headers || {},
			workflowId: created.id,
		};
		side.runs = [];
	}
	const problems = [];
	const burst = async (side, count, what) => {
		const cpuBefore = groupCpuSeconds(n8n.pid);
		const r = await M.runDeliveryBurst({
			n8n,
			sim,
			receiver: side.receiver,
			count,
			senders: opts.senders,
			offset,
		});
		offset += count;
		await M.settle(n8n, side.receiver.workflowId);
		// n8n's whole process group from the first request until its executions stopped
		r.cpuMsPerDelivery = (1000 * (groupCpuSeconds(n8n.pid) - cpuBefore)) / count;
		log(
			`deliveries | ${side.label} | ${what}: ${R.fmt(r.answeredPerSec, 1)}/s answered, ${R.fmt(r.executedPerSec, 1)}/s executed, n8n CPU ${R.fmt(r.cpuMsPerDelivery, 1)} ms per delivery, ack p50 ${R.fmt(r.ackP50, 1)} ms p99 ${R.fmt(r.ackP99, 1)} ms, ${r.ok}/${count} 2xx, ${r.success} ok + ${r.failed} failed executions`,
		);
		if (r.ok !== count)
			problems.push(
				`${side.label}, ${what}: ${r.ok}/${count} deliveries answered 2xx (${r.errors.join(', ')})`,
			);
		if (r.success !== count || r.failed)
			problems.push(
				`${side.label}, ${what}: ${r.success} successful and ${r.failed} failed executions for ${count} deliveries`,
			);
		return r;
	};
	for (const side of sides) await burst(side, opts.warmDeliveries, 'warm-up');
	for (let rep = 1; rep <= opts.deliveryReps; rep++) {
		for (const side of R.balancedOrder(sides, rep - 1))
			side.runs.push(await burst(side, opts.deliveries, `run ${rep}`));
	}
	return { sides, problems };
}

/** n8n's lazy expression engine: an isolate only for an expression that needs one. */
const LAZY_ENV = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };

/** Whether part 2 runs once more under LAZY_ENV (not when the first n8n already had it). */
function wantsLazy(opts) {
	return opts.lazy && opts.n8nEnv.N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE === undefined;
}

/**
 * Part 2 in a second n8n started with LAZY_ENV (the first one must be stopped: one n8n at a
 * time on this machine), stopped again by pid afterwards.
 */
async function lazyReceivers({ pkg, sim, opts, webhookVersion }) {
	log(
		`deliveries: a second n8n with ${Object.entries(LAZY_ENV)
			.map(([k, v]) => `${k}=${v}`)
			.join(' ')}`,
	);
	const n8n = await startN8n({
		major: '2',
		tgz: pkg.tgz,
		logLevel: 'warn',
		env: { NODE_FUNCTION_ALLOW_BUILTIN: 'crypto', ...opts.n8nEnv, ...LAZY_ENV },
	});
	running.n8n = n8n;
	try {
		return await compareReceivers({ n8n, sim, log: M.simLogReader(sim) }, { opts, webhookVersion });
	} finally {
		running.n8n = null;
		await n8n.stop().catch((e) => log(`stopping n8n: ${e.message}`));
	}
}

module.exports = { compareReceivers, wantsLazy, lazyReceivers };
