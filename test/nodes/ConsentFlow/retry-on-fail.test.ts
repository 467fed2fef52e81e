// n8n's node setting "Retry On Fail" (INode.retryOnFail) makes n8n's WorkflowExecute run the whole
// node again, with every input item, after it threw (n8n-core workflow-execute: the node is
// re-run up to maxTries). For Create that would resend creates the service already accepted, so
// the node refuses before any request; Delete (a second delete answers 404) still runs.
import { simRequests, useSimulator } from '../../support/simulator';
import {
	SIM_OPTIONS,
	createFlowFor,
	createParams,
	credentialsFor,
	deleteParams,
	runNode,
} from './helpers';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });

describe('Consent Flow and n8n\'s "Retry On Fail"', () => {
	test('Create with Retry On Fail on is refused before any request (token included), naming the setting', async () => {
		const { output, error } = await runNode(createParams(), {
			credentials: credentialsFor(sim),
			items: 3,
			nodeSettings: { retryOnFail: true, maxTries: 3 },
		});
		expect(output).toBeUndefined();
		expect(error?.message).toMatch(/^Turn off "Retry On Fail" in this node's Settings/);
		expect(error?.message).toContain('two consent flows');
		expect(error?.description).toMatch(/Max Retries/);
		expect(await simRequests(sim)).toEqual([]);
	});

	test('Create and Wait for Outcome is refused the same way', async () => {
		const { error } = await runNode(createParams({ operation: 'createAndWait' }), {
			credentials: credentialsFor(sim),
			nodeSettings: { retryOnFail: true },
		});
		expect(error?.message).toMatch(/Retry On Fail/);
		expect(await simRequests(sim)).toEqual([]);
	});

	test('Create with Retry On Fail off (or unset) runs', async () => {
		const { output, error } = await runNode(createParams(), {
			credentials: credentialsFor(sim),
			nodeSettings: { retryOnFail: false },
		});
		expect(error).toBeUndefined();
		expect(output).toHaveLength(1);
	});

	test('Delete with Retry On Fail on runs: deleting twice is safe', async () => {
		const flowId = await createFlowFor(sim);
		const { output, error } = await runNode(deleteParams(flowId), {
			credentials: credentialsFor(sim),
			nodeSettings: { retryOnFail: true },
		});
		expect(error).toBeUndefined();
		expect(output).toHaveLength(1);
		const deletes = (await simRequests(sim)).filter((r) => r.method === 'DELETE');
		expect(deletes).toHaveLength(1);
	});
});
