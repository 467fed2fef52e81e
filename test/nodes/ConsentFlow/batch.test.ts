import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { control, resetSim, simFlows, simRequests, useSimulator } from '../../support/simulator';
import {
	FLOW_PATH,
	SIM_OPTIONS,
	apiRequests,
	createParams,
	credentialsFor,
	deleteParams,
	runNode,
} from './helpers';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });

const ext = (id: string) => ({ additionalFields: { externalId: id } });

describe('Consent Flow: batches and Continue On Fail', () => {
	test('mixed batch: one output per input, in order, pairedItem on every item, errors as items', async () => {
		const { output, error } = await runNode(
			[
				createParams(ext('ok-1')),
				createParams({ ...ext('invalid'), nationalId: '12345678901' }),
				createParams({
					...ext('api-400'),
					nationalId: '0181700009',
					options: { validateNationalId: false },
				}),
				deleteParams('no-such-flow'),
				createParams(ext('ok-2')),
			],
			{ credentials: credentialsFor(sim), continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(5);
		expect(output!.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3, 4].map((item) => ({ item })),
		);

		expect(output![0].json).toEqual(
			expect.objectContaining({ externalId: 'ok-1', href: expect.any(String) }),
		);
		expect(output![1].json).toEqual({
			error:
				'Item 2: "National ID" has no valid month in digits 3–4 (01–12, +40 for H-numbers, +80 for synthetic test numbers)',
			description: expect.stringMatching(/^Got 11 characters/),
			field: 'nationalId',
		});
		expect(output![2].json).toEqual({
			error: expect.stringMatching(
				/^Item 3: The Consent Flow service rejected the request \(400\): invalid fields: nationalId/,
			),
			description: expect.stringMatching(/^Fix these fields: National ID: /),
			httpCode: 400,
			field: 'nationalId',
		});
		expect(output![3].json).toEqual({
			error: 'Item 4: No consent flow "no-such-flow" exists (404) — it may already be deleted',
			description: expect.stringMatching(/^Check the Flow ID/),
			httpCode: 404,
			field: 'flowId',
		});
		expect(output![4].json).toEqual(
			expect.objectContaining({ externalId: 'ok-2', href: expect.any(String) }),
		);

		// the invalid item never reached the service; the others did, one after the other, in item order
		const api = await apiRequests(sim);
		expect(api.map((r) => `${r.method} ${r.status}`)).toEqual([
			'POST 201',
			'POST 400',
			'DELETE 404',
			'POST 201',
		]);
		expect(
			api
				.filter((r) => r.method === 'POST')
				.map((r) => (r.body as { externalId: string }).externalId),
		).toEqual(['ok-1', 'api-400', 'ok-2']);
		expect((await simFlows(sim)).map((f) => f.externalId)).toEqual(['ok-1', 'ok-2']);
	});

	test('Continue On Fail with token failure: every item gets its own error item', async () => {
		const { output } = await runNode([createParams(), deleteParams('x')], {
			credentials: credentialsFor(sim, { clientSecret: 'nope-nope-nope' }),
			continueOnFail: true,
		});
		expect(output!.map((item) => [item.json.error, item.pairedItem])).toEqual([
			[
				'Item 1: The identity provider refused the client credentials (invalid_client)',
				{ item: 0 },
			],
			[
				'Item 2: The identity provider refused the client credentials (invalid_client)',
				{ item: 1 },
			],
		]);
		expect(await apiRequests(sim)).toHaveLength(0);
	});

	test('without Continue On Fail, an invalid item stops the batch before ANY request', async () => {
		const { output, error } = await runNode(
			[
				createParams(ext('a')),
				createParams(ext('b')),
				createParams({ ...ext('c'), organizationId: '12' }),
			],
			{ credentials: credentialsFor(sim) },
		);
		expect(output).toBeUndefined();
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error!.message).toBe(
			'Item 3: "Organization Number" must be exactly 9 digits (no spaces)',
		);
		expect(error!.context.itemIndex).toBe(2);
		expect(await simRequests(sim)).toEqual([]);
	});

	test('without Continue On Fail, an API failure stops at that item: earlier ones are done, later ones not sent', async () => {
		await control(sim, 'POST', '/faults', {
			count: 1,
			status: 500,
			match: { method: 'POST', pathPrefix: FLOW_PATH },
		});
		const { error } = await runNode(
			[createParams(ext('first')), createParams(ext('second')), createParams(ext('third'))],
			{
				credentials: credentialsFor(sim),
			},
		);
		// the fault hits the first POST
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error!.context.itemIndex).toBe(0);
		expect(error!.message).toMatch(/^Item 1: /);
		expect(await apiRequests(sim, 'POST')).toHaveLength(1);

		await resetSim(sim);
		const second = await runNode(
			[
				createParams(ext('first')),
				createParams({ ...ext('second'), nationalId: '1', options: { validateNationalId: false } }),
				createParams(ext('third')),
			],
			{ credentials: credentialsFor(sim) },
		);
		expect(second.error).toBeInstanceOf(NodeApiError);
		expect(second.error!.context.itemIndex).toBe(1);
		expect(second.error!.message).toMatch(
			/^Item 2: The Consent Flow service rejected the request \(400\)/,
		);
		expect(
			(await apiRequests(sim, 'POST')).map((r) => (r.body as { externalId: string }).externalId),
		).toEqual(['first', 'second']);
		expect((await simFlows(sim)).map((f) => f.externalId)).toEqual(['first']);
	});
});
