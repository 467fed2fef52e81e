'use strict';
// Part 3 of `npm run bench:n8n`: 1,000 estimates under the simulator's rate limit, our node
// against HTTP Request + generic OAuth2, and the section it writes.

const { log } = require('../../test/e2e/lib/install');
const { simConfig } = require('../../test/e2e/lib/suite');
const S = require('../../test/e2e/lib/scenarios');
const B = require('./n8n-workflows');
const R = require('./n8n-report');
const { genericOAuth2 } = require('./n8n-nodes');

const RATE_SECTION = '## Under a rate limit: adaptive concurrency vs the HTTP Request node';

/** One run of a workflow whose node may fail: counts from n8n's execution and the simulator's log. */
async function rateLimitedRun(ctx, side) {
	const { n8n, sim } = ctx;
	const before = (await n8n.executions(side.wf.id, { includeData: false })).length;
	await ctx.log.next();
	const t0 = Date.now();
	const res = await n8n.callWebhook(side.wf.path, {});
	const list = await n8n.waitForExecutions(side.wf.id, { count: before + 1, timeoutMs: 300000 });
	const exec = await n8n.execution(list[0].id, { includeData: true });
	const ms = Date.now() - t0;
	const calls = (await ctx.log.next()).filter((r) =>
		r.path.startsWith(`${sim.estimatePrefix}/RealEstates/`),
	);
	const run = exec.data?.resultData?.runData?.[side.wf.nodeName]?.[0];
	const items = run?.data?.main?.[0] || [];
	const error = exec.data?.resultData?.error?.message || run?.error?.message;
	return {
		label: side.label,
		status: exec.status,
		answer: res.status,
		ms,
		outputItems: items.length,
		failedItems: items.filter((it) => it.json && it.json.error !== undefined).length,
		answered: calls.filter((r) => r.status === 200).length,
		refused: calls.filter((r) => r.status === 429).length,
		error: error ? String(error).slice(0, 100) : undefined,
	};
}

async function underRateLimit(ctx, { opts, option, httpVersion }) {
	const { n8n, sim } = ctx;
	const sides = [
		{
			label: `Real Estate Estimate node (Concurrent Requests ${option.default}, adaptive)`,
			build: (c) => B.estimateGet({ count: opts.rateItems, cred: c }),
			credential: () => S.estimateCredential(ctx, 'bench rate ours'),
		},
		{
			label: 'HTTP Request + oAuth2Api, templated URL (defaults)',
			build: (c) => B.httpEstimateGet({ count: opts.rateItems, cred: c, sim, httpVersion }),
			credential: () =>
				genericOAuth2(ctx, 'bench rate http', {
					tokenUrl: sim.realms.estimate.tokenUrl,
					client: sim.clients.estimate,
					scope: 'estimate:read',
				}),
		},
	];
	for (const side of sides) {
		const cred = await side.credential();
		const built = side.build(cred);
		const created = await n8n.deployWorkflow(built.workflow);
		side.wf = { id: created.id, path: built.path, nodeName: built.nodeName };
		// a first run without the limit fetches the token (both sides alike)
		await rateLimitedRun(ctx, side);
	}
	await simConfig(sim, { rateLimitPerSecond: opts.rateLimit });
	const results = [];
	try {
		for (const side of sides) {
			await new Promise((r) => setTimeout(r, 1100)); // a full bucket for each side
			const r = await rateLimitedRun(ctx, side);
			log(`rate limit ${opts.rateLimit}/s | ${r.label}: ${JSON.stringify(r)}`);
			results.push(r);
		}
	} finally {
		await simConfig(sim, { rateLimitPerSecond: 0 });
	}
	return results;
}

function rateLimitText({ opts, info, results }) {
	const rows = results
		.map(
			(r) =>
				`| ${r.label} | ${r.status}${r.error ? ` (${r.error})` : ''} | ${r.outputItems} | ${r.failedItems} | ${r.answered} | ${r.refused} | ${R.fmt(r.ms / 1000, 1)} s |`,
		)
		.join('\n');
	return `${RATE_SECTION}

Measured with \`npm run bench:n8n\` (part 3; \`-- --only-rate-limit\` runs it alone) on ${new Date().toISOString().slice(0, 10)}: n8n ${info.n8nVersion}, ${info.nproc} cores, ${R.fmt(info.ramGiB, 0)} GiB, package at ${info.commit}. The
simulator's rate limiter at ${opts.rateLimit} requests/s (a token bucket of ${opts.rateLimit}, refilled at that rate; beyond it 429 with
\`Retry-After: 1\`); Webhook → Code (${opts.rateItems} items) → the node, the same \`…/EvEstimate\` requests; one run each after a
warm-up run without the limit (token cached), a full bucket at the start of each. The floor is ${R.fmt(Math.max(0, opts.rateItems - opts.rateLimit) / opts.rateLimit, 1)} s.

| Side | Execution | Output items | Failed items | Answered 200 | Answered 429 | Time |
|---|---|---:|---:|---:|---:|---:|
${rows}

What our node does (\`nodes/shared/pacer.ts\`): every HTTP attempt takes a slot; the slots start at the node's default, grow by one
per window of fast answers up to Concurrent Requests, halve once per window on 429/503, and a Retry-After pauses every lane. A
refusal of an attempt sent while others were in flight does not use up the item's retries (at most 20 such). The HTTP Request
node has no limit on requests in flight and stops the execution at the first 429 (with *Retry On Fail* n8n runs the whole node
again; with *Continue On Fail* the refused items come out as errors). \`test/e2e/rate-limit.test.js\` checks ours on n8n 2.x and
1.x (1.x drops the Retry-After of a failed request: more 429s, still no failed item).
`;
}

module.exports = { RATE_SECTION, underRateLimit, rateLimitText };
