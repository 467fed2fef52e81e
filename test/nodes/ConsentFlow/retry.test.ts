import { NodeApiError } from 'n8n-workflow';
import { addFault, control, simFlows, useSimulator } from '../../support/simulator';
import {
	FLOW_PATH,
	SIM_OPTIONS,
	apiRequests,
	createFlowFor,
	createParams,
	credentialsFor,
	deleteParams,
	runNode,
} from './helpers';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });

const createFlow = async (): Promise<string> => await createFlowFor(sim);

describe('Consent Flow: retries', () => {
	test('create: 429 with Retry-After: 1, then success → 2 POSTs, the wait honoured, one flow', async () => {
		await addFault(sim, {
			count: 1,
			status: 429,
			retryAfter: 1,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const started = Date.now();
		const { output, error } = await runNode(createParams(), { credentials: credentialsFor(sim) });
		const elapsed = Date.now() - started;
		expect(error).toBeUndefined();
		expect(elapsed).toBeGreaterThanOrEqual(950);
		const posts = await apiRequests(sim, 'POST');
		expect(posts.map((r) => r.status)).toEqual([429, 201]);
		expect(posts[0].body).toEqual(posts[1].body);
		const flows = await simFlows(sim);
		expect(flows.map((f) => f.id)).toEqual([output![0].json.id]);
	});

	test('create: 503 more often than the bound → fails after max attempts, saying how many', async () => {
		await addFault(sim, {
			count: 5,
			status: 503,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const { error } = await runNode(
			createParams({ options: { maxRetries: 2, retryDelayMs: 10 } }),
			{
				credentials: credentialsFor(sim),
			},
		);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error!.message).toBe(
			'Item 1: The Consent Flow service is busy (503) and still refused after 3 attempts — try again later',
		);
		expect(error!.httpCode).toBe('503');
		expect(error!.description).toMatch(/Run the workflow again later/);
		expect((await apiRequests(sim, 'POST')).map((r) => r.status)).toEqual([503, 503, 503]);
		const { faults } = await control(sim, 'GET', '/faults');
		expect((faults as Array<{ remaining: number }>)[0].remaining).toBe(2);
		expect(await simFlows(sim)).toHaveLength(0);
	});

	test('the default bound is 3 retries (4 attempts), backing off from Retry Wait', async () => {
		await addFault(sim, {
			count: 10,
			status: 429,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const started = Date.now();
		const { error } = await runNode(createParams({ options: { retryDelayMs: 20 } }), {
			credentials: credentialsFor(sim),
		});
		expect(error!.message).toMatch(/busy \(429\) and still refused after 4 attempts/);
		expect(await apiRequests(sim, 'POST')).toHaveLength(4);
		// 20 + 40 + 80 ms of backoff
		expect(Date.now() - started).toBeGreaterThanOrEqual(130);
	});

	test('Max Retries 0: a 429 fails at once', async () => {
		await addFault(sim, {
			count: 1,
			status: 429,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const { error } = await runNode(createParams({ options: { maxRetries: 0 } }), {
			credentials: credentialsFor(sim),
		});
		expect(error!.message).toMatch(/still refused after 1 attempt — try again later$/);
		expect(await apiRequests(sim, 'POST')).toHaveLength(1);
	});

	test('a Retry-After longer than the node waits (30 s) is not waited for, and the message says so', async () => {
		await addFault(sim, {
			count: 1,
			status: 429,
			retryAfter: 120,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const started = Date.now();
		const { error } = await runNode(createParams(), { credentials: credentialsFor(sim) });
		expect(Date.now() - started).toBeLessThan(3000);
		expect(error!.message).toMatch(/busy \(429\) and still refused after 1 attempt/);
		expect(error!.description).toMatch(
			/^It asked to wait \(Retry-After: 120\)\. The service asked to wait 120 s \(Retry-After\), longer than the node waits \(30 s\)/,
		);
		expect(await apiRequests(sim, 'POST')).toHaveLength(1);
	});

	test('create: a dropped connection → exactly ONE POST and "may or may not have been created"', async () => {
		await addFault(sim, { count: 1, drop: true, match: { method: 'POST', pathPrefix: FLOW_PATH } });
		const { error } = await runNode(
			createParams({ options: { maxRetries: 5, retryDelayMs: 10 } }),
			{
				credentials: credentialsFor(sim),
			},
		);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error!.message).toMatch(
			/^Item 1: The connection to the Consent Flow API at 127\.0\.0\.1:\d+ broke after the request was sent — the flow may or may not have been created$/,
		);
		expect(error!.description).toMatch(/does not send a create twice/);
		expect(error!.httpCode ?? null).toBeNull();
		const posts = await apiRequests(sim, 'POST');
		expect(posts).toHaveLength(1);
		expect(posts[0].aborted).toBe(true);
		// the simulator drops before handling: nothing was created, which the node cannot know
		expect(await simFlows(sim)).toHaveLength(0);
	});

	test('create: a 500 or 502 is not retried (the request may have been processed)', async () => {
		await addFault(sim, {
			count: 2,
			status: 502,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const { error } = await runNode(createParams(), { credentials: credentialsFor(sim) });
		expect(error!.httpCode).toBe('502');
		expect(error!.message).toBe(
			'Item 1: The Consent Flow service failed with an internal error (502)',
		);
		expect(await apiRequests(sim, 'POST')).toHaveLength(1);
	});

	test('delete: a dropped connection is retried and the flow is deleted', async () => {
		const flowId = await createFlow();
		await addFault(sim, { count: 1, drop: true, match: { method: 'DELETE' } });
		const { output, error } = await runNode(deleteParams(flowId), {
			credentials: credentialsFor(sim),
		});
		expect(error).toBeUndefined();
		expect(output![0].json).toEqual({ flowId, deleted: true, id: flowId });
		const deletes = await apiRequests(sim, 'DELETE');
		expect(deletes.map((r) => [r.aborted ?? false, r.status])).toEqual([
			[true, null],
			[false, 200],
		]);
	});

	test('delete: connection dropped every time → fails after max attempts, "may or may not have been deleted"', async () => {
		await addFault(sim, { count: 3, drop: true, match: { method: 'DELETE' } });
		const { error } = await runNode(
			deleteParams('flow-1', { options: { maxRetries: 2, retryDelayMs: 10 } }),
			{
				credentials: credentialsFor(sim),
			},
		);
		expect(error!.message).toMatch(
			/^Item 1: The connection to the Consent Flow API at 127\.0\.0\.1:\d+ broke \(3 attempts\) — the flow may or may not have been deleted$/,
		);
		expect(error!.description).toMatch(
			/^If no consent\.deleted event arrives for this flow, run the item again later/,
		);
		expect(await apiRequests(sim, 'DELETE')).toHaveLength(3);
	});

	test('delete: 503 and 504 are retried, then success', async () => {
		const flowId = await createFlow();
		await addFault(sim, { count: 1, status: 503, retryAfter: 0, match: { method: 'DELETE' } });
		await addFault(sim, { count: 1, status: 504, match: { method: 'DELETE' } });
		const { output, error } = await runNode(deleteParams(flowId), {
			credentials: credentialsFor(sim),
		});
		expect(error).toBeUndefined();
		expect(output![0].json.deleted).toBe(true);
		expect((await apiRequests(sim, 'DELETE')).map((r) => r.status)).toEqual([503, 504, 200]);
	});

	test('delete: a 404 after a lost connection mentions that the earlier attempt may have deleted it', async () => {
		const flowId = await createFlow();
		// the first attempt is handled but the answer is slow: simulate "handled, then lost" by deleting first
		await runNode(deleteParams(flowId), { credentials: credentialsFor(sim) });
		await control(sim, 'DELETE', '/requests');
		await addFault(sim, { count: 1, drop: true, match: { method: 'DELETE' } });
		const { error } = await runNode(deleteParams(flowId), { credentials: credentialsFor(sim) });
		expect(error!.httpCode).toBe('404');
		expect(error!.description).toMatch(
			/An earlier attempt of this delete lost its connection \(this was attempt 2\)/,
		);
		expect(await apiRequests(sim, 'DELETE')).toHaveLength(2);
	});
});
