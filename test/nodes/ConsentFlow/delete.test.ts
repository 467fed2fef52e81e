import { simFlows, useSimulator } from '../../support/simulator';
import {
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

describe('Consent Flow: delete', () => {
	test('deletes a flow: DELETE /api/flows/{id}, output { flowId, deleted: true, ...answer }', async () => {
		const flowId = await createFlow();
		const { output, error } = await runNode(deleteParams(flowId), {
			credentials: credentialsFor(sim),
		});
		expect(error).toBeUndefined();
		expect(output).toEqual([
			{ json: { flowId, deleted: true, id: flowId }, pairedItem: { item: 0 } },
		]);
		const requests = await apiRequests(sim);
		expect(requests.map((r) => `${r.method} ${r.path} ${r.status} ${r.authScheme}`)).toEqual([
			`DELETE /consent/api/flows/${flowId} 200 Bearer`,
		]);
		const [flow] = await simFlows(sim);
		expect(flow.deleted).toBe(true);
	});

	test('the flow ID is trimmed', async () => {
		const flowId = await createFlow();
		const { output, error } = await runNode(deleteParams(`  ${flowId}\n`), {
			credentials: credentialsFor(sim),
		});
		expect(error).toBeUndefined();
		expect(output![0].json.flowId).toBe(flowId);
	});

	test('an unknown flow gives 404 "no such flow", and a second delete of the same flow too', async () => {
		const flowId = await createFlow();
		const first = await runNode(deleteParams(flowId), { credentials: credentialsFor(sim) });
		expect(first.error).toBeUndefined();
		const second = await runNode(deleteParams(flowId), { credentials: credentialsFor(sim) });
		expect(second.error!.name).toBe('NodeApiError');
		expect(second.error!.message).toBe(
			`Item 1: No consent flow "${flowId}" exists (404) — it may already be deleted`,
		);
		expect(second.error!.description).toMatch(/^Check the Flow ID: use the id returned by Create/);
		expect(second.error!.httpCode).toBe('404');
		expect(second.error!.context.itemIndex).toBe(0);
		// 404 is not retried
		expect(await apiRequests(sim, 'DELETE')).toHaveLength(2);
	});

	test('the flow ID is URL-encoded into the path', async () => {
		const { error } = await runNode(deleteParams('a/b c?d'), { credentials: credentialsFor(sim) });
		expect(error!.message).toBe(
			'Item 1: No consent flow "a/b c?d" exists (404) — it may already be deleted',
		);
		const [request] = await apiRequests(sim, 'DELETE');
		expect(request.path).toBe('/consent/api/flows/a%2Fb%20c%3Fd');
	});

	test('create and delete in one batch, item by item', async () => {
		const flowId = await createFlow();
		const { output, error } = await runNode([createParams(), deleteParams(flowId)], {
			credentials: credentialsFor(sim),
		});
		expect(error).toBeUndefined();
		expect(output![0].json.href).toEqual(expect.any(String));
		expect(output![1].json).toEqual({ flowId, deleted: true, id: flowId });
		expect((await apiRequests(sim)).map((r) => r.method)).toEqual(['POST', 'DELETE']);
	});
});
