// n8n's Retry On Fail reruns the whole node with every item after it threw (n8n-core
// workflow-execute, up to maxTries): each POST …/EvEstimate may store a document, so a storing
// estimate refuses the setting before any request; reads and estimates not stored stay retryable.
import { addFault, useSimulator } from '../../support/simulator';
import { cadastre, requestLog, runNode, runNodeError } from './helpers';

const sim = useSimulator({ beforeEach: 'reset' });

const storing = { resource: 'estimate', operation: 'get', ...cadastre('0301', 208, 12) };
const retryOnFail = { nodeSettings: { retryOnFail: true, maxTries: 3 } };

describe('Real Estate Estimate and n8n\'s "Retry On Fail"', () => {
	test('a storing Get Estimate is refused before any request (token included), naming the setting and the way out', async () => {
		const error = await runNodeError(sim, storing, { ...retryOnFail, items: 3 });
		expect(error.message).toMatch(/^Turn off "Retry On Fail" in this node's Settings/);
		expect(error.message).toContain('may already have stored as documents');
		expect(error.message).toContain('"Don\'t Store Estimate"');
		expect(error.description).toContain('Continue On Fail');
		expect(await requestLog(sim, '')).toEqual([]);
	});

	test('one item that may store is enough to refuse', async () => {
		const error = await runNodeError(
			sim,
			[
				{ ...storing, dontStoreEstimate: true },
				{ ...storing, dontStoreEstimate: false },
			],
			retryOnFail,
		);
		expect(error.message).toMatch(/Retry On Fail/);
		expect(await requestLog(sim, '')).toEqual([]);
	});

	test("with Don't Store Estimate on every item it runs", async () => {
		const { output } = await runNode(sim, { ...storing, dontStoreEstimate: true }, retryOnFail);
		expect(output).toHaveLength(1);
	});

	test.each([
		['getBasis', 'estimate'],
		['getMarketEstimate', 'estimate'],
	])('a read (%s) with Retry On Fail runs', async (operation, resource) => {
		const { output } = await runNode(
			sim,
			{ resource, operation, ...cadastre('0301', 208, 12) },
			retryOnFail,
		);
		expect(output.length).toBeGreaterThan(0);
	});

	test('Continue On Fail with one 404 among three sends each storing POST once and gives three items', async () => {
		await addFault(sim, { status: 503, count: 1, match: { method: 'POST' } }); // no Retry-After: not resent
		const { output } = await runNode(
			sim,
			[
				storing,
				{ ...storing, ...cadastre('0301', 404, 1) },
				{ ...storing, ...cadastre('0301', 208, 13) },
			],
			{ continueOnFail: true },
		);
		expect(output).toHaveLength(3);
		const posts = (await requestLog(sim)).filter((r) => r.method === 'POST');
		expect(posts.map((r) => r.path.replace(/^.*RealEstates\//, ''))).toEqual(
			expect.arrayContaining([
				'0301/208/12/0/0/EvEstimate',
				'0301/404/1/0/0/EvEstimate',
				'0301/208/13/0/0/EvEstimate',
			]),
		);
		expect(posts).toHaveLength(3);
		expect(output.filter((item) => item.json.error !== undefined)).toHaveLength(2);
	});
});
