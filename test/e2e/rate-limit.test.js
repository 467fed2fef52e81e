'use strict';
// Issue 11, adaptive concurrency, in a real n8n: the simulator's rate limiter on (a token bucket of
// RATE requests per second over the APIs, then 429 with Retry-After: 1). The same 100 estimate
// requests (Webhook → Split Out → node) from the Real Estate Estimate node at its default
// Concurrent Requests, and from n8n's HTTP Request node with the same credential. Asserted: ours
// answers every item, none failed. What the HTTP Request node does is logged (and written into
// BENCHMARKS.md by hand), not asserted: it is n8n's behaviour, not ours.
const { log } = require('./lib/install');
const { versions, useN8n, simRequests, simMark } = require('./lib/suite');
const W = require('./lib/workflows');
const S = require('./lib/scenarios');

const RATE = 20;
const ITEMS = 100;

describe.each(versions())('n8n %s.x: under a rate limit of 20 requests/s', (major) => {
	const ctx = useN8n(major, { simulator: true, simulatorOptions: { rateLimitPerSecond: RATE } });
	let cred;
	beforeAll(async () => {
		cred = await S.estimateCredential(ctx, 'rate-limited estimate');
	});

	const items = Array.from({ length: ITEMS }, (_, i) => ({ knr: '0301', gnr: 300 + i, bnr: 1 }));

	async function run(node, prefix) {
		const wf = await S.deployNodeWorkflow(ctx, node, { fanOut: true, prefix });
		const mark = await simMark(ctx.sim);
		const started = Date.now();
		const result = await S.runWorkflow(ctx, wf, { items });
		const ms = Date.now() - started;
		const calls =
			(await simRequests(ctx.sim, { since: mark, pathPrefix: ctx.sim.estimatePrefix })) || [];
		return {
			...result,
			ms,
			answered: calls.filter((r) => r.status === 200).length,
			refused: calls.filter((r) => r.status === 429).length,
		};
	}

	test(`${ITEMS} estimates: the Real Estate Estimate node answers every item, none failed; the HTTP Request node is measured beside it`, async () => {
		const ours = await run(
			S.packageNode('realEstateEstimate', {
				name: 'Real Estate Estimate',
				cred,
				parameters: {
					resource: 'estimate',
					operation: 'getBasis',
					identifyBy: 'cadastre',
					knr: '={{ $json.knr }}',
					gnr: '={{ $json.gnr }}',
					bnr: '={{ $json.bnr }}',
					fnr: 0,
					snr: 0,
					// the raw answer, as the HTTP Request node beside it returns
					simplify: false,
					options: {},
				},
			}),
			'rl-ours',
		);
		expect({ status: ours.exec.status, error: W.executionError(ours.exec)?.message }).toEqual({
			status: 'success',
			error: undefined,
		});
		const out = S.nodeItems(ours.exec, 'Real Estate Estimate');
		expect(out).toHaveLength(ITEMS);
		expect(out.filter((it) => it.json.error !== undefined)).toEqual([]);
		expect(out.map((it) => it.pairedItem.item)).toEqual(items.map((_, i) => i));
		expect(ours.answered).toBe(ITEMS);

		const http = await run(
			{
				...W.httpRequestNode({
					name: 'HTTP Request',
					url: `={{ '${ctx.sim.estimateBaseUrl}/RealEstates/' + $json.knr + '/' + $json.gnr + '/' + $json.bnr + '/0/0/EvEstimateBasis' }}`,
					credentialType: 'realEstateEstimateOAuth2Api',
					credential: cred,
					position: [440, 0],
				}),
			},
			'rl-http',
		);
		const httpError = W.executionError(http.exec)?.message;
		log(
			`rate limit ${RATE}/s, ${ITEMS} items, n8n ${major}.x: ours ${ours.answered} answered, ${ours.refused} refused (429) in ${(ours.ms / 1000).toFixed(1)} s; ` +
				`HTTP Request node: execution ${http.exec.status}${httpError ? ` (${httpError.slice(0, 120)})` : ''}, ${http.answered} answered, ${http.refused} refused in ${(http.ms / 1000).toFixed(1)} s`,
		);
	}, 300000);
});
