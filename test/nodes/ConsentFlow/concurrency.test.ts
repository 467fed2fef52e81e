/**
 * Consent Flow create and delete with Concurrent Requests > 1 (issue "Faster than wiring it by
 * hand"): every guarantee of the sequential node still holds, checked against the simulator's log.
 */
import { NodeOperationError } from 'n8n-workflow';
import { addFault, simFlows, simRequests, useSimulator } from '../../support/simulator';
import {
	apiRequests,
	createParams,
	credentialsFor,
	deleteParams,
	FLOW_PATH,
	runNode,
	SIM_OPTIONS,
} from './helpers';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });
const ext = (id: string, concurrency = 10) => ({
	additionalFields: { externalId: id },
	options: { retryDelayMs: 10, concurrency },
});

describe('Consent Flow: Concurrent Requests', () => {
	test('40 creates, 10 at a time, 40 ms each: one token, each created once, output in input order with pairing', async () => {
		await addFault(sim, {
			latencyMs: 40,
			count: 1000,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const ids = Array.from({ length: 40 }, (_, i) => `loan-${i}`);
		const started = Date.now();
		const { output, error, tokenStore } = await runNode(
			ids.map((id) => createParams(ext(id))),
			{ credentials: credentialsFor(sim) },
		);
		const elapsed = Date.now() - started;
		expect(error).toBeUndefined();
		expect(output!.map((item) => [item.json.externalId, item.pairedItem])).toEqual(
			ids.map((id, item) => [id, { item }]),
		);
		expect(tokenStore.fetches).toBe(1);
		const posts = await apiRequests(sim, 'POST');
		expect(posts).toHaveLength(40);
		expect(new Set(posts.map((r) => (r.body as { externalId: string }).externalId)).size).toBe(40);
		expect((await simFlows(sim)).length).toBe(40);
		// at one at a time this is at least 40 × 40 ms; in parallel it must be well below
		expect(elapsed).toBeLessThan(40 * 40);
	});

	test('an invalid item anywhere still stops the batch before ANY request', async () => {
		const items = Array.from({ length: 12 }, (_, i) => createParams(ext(`x-${i}`)));
		items[9] = createParams({ ...ext('bad'), organizationId: '12' });
		const { error } = await runNode(items, { credentials: credentialsFor(sim) });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error!.message).toMatch(/^Item 10: "Organization Number"/);
		expect(await simRequests(sim)).toEqual([]);
	});

	test('a create that may have arrived is never sent again; refused ones (429/503) are retried', async () => {
		await addFault(sim, {
			status: 503,
			retryAfter: 0,
			count: 3,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		await addFault(sim, { drop: true, count: 2, match: { method: 'POST', pathPrefix: FLOW_PATH } });
		const ids = Array.from({ length: 15 }, (_, i) => `c-${i}`);
		const { output } = await runNode(
			ids.map((id) => createParams(ext(id))),
			{ credentials: credentialsFor(sim), continueOnFail: true },
		);
		expect(output).toHaveLength(15);
		expect(output!.map((item) => item.pairedItem)).toEqual(ids.map((_, item) => ({ item })));
		const failed = output!.filter((item) => item.json.error !== undefined);
		// the two dropped connections may or may not have created a flow: reported, not re-sent
		expect(failed).toHaveLength(2);
		for (const item of failed)
			expect(String(item.json.error)).toMatch(/may or may not have been created/);
		const posts = await apiRequests(sim, 'POST');
		const sends = new Map<string, number>();
		for (const r of posts) {
			const id = (r.body as { externalId: string }).externalId;
			sends.set(id, (sends.get(id) ?? 0) + 1);
		}
		const refused = posts
			.filter((r) => r.status === 503)
			.map((r) => (r.body as { externalId: string }).externalId);
		for (const [id, count] of sends) {
			// each item is sent once, plus once more per 503 it got
			expect(count).toBe(1 + refused.filter((r) => r === id).length);
		}
		expect((await simFlows(sim)).length).toBe(13);
	});

	test('delete runs concurrently too, one output per input in order', async () => {
		const created = await runNode(
			['a', 'b', 'c', 'd', 'e'].map((id) => createParams(ext(id))),
			{ credentials: credentialsFor(sim) },
		);
		const flowIds = created.output!.map((item) => String(item.json.id));
		const { output } = await runNode(
			[...flowIds, 'unknown-flow'].map((id) =>
				deleteParams(id, { options: { retryDelayMs: 10, concurrency: 6 } }),
			),
			{ credentials: credentialsFor(sim), continueOnFail: true },
		);
		expect(output!.map((item) => item.json.flowId)).toEqual([...flowIds, undefined]);
		expect(output!.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3, 4, 5].map((item) => ({ item })),
		);
		expect(output![5].json).toMatchObject({ httpCode: 404, field: 'flowId' });
		expect((await simFlows(sim)).map((flow) => flow.deleted)).toEqual([
			true,
			true,
			true,
			true,
			true,
		]);
	});
});
