// The one check of n8n's Retry On Fail, shared by Consent Flow (creates) and Real Estate Estimate
// (estimates that may be stored); the nodes' own tests run it against the simulator.
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { createsAgain } from '../../../nodes/ConsentFlow/flow/common';
import { refuseRetryOnFail, retryOnFailProblem } from '../../../nodes/shared/retry-on-fail';

describe('retryOnFailProblem', () => {
	test.each([
		[{}, 'create', null],
		[{ retryOnFail: false }, 'create', null],
		[{ retryOnFail: true }, 'delete', null],
		[{ retryOnFail: true }, 'create', 'problem'],
		[{ retryOnFail: true }, 'createAndWait', 'problem'],
	])('Consent Flow: (%j, %s)', (node, operation, expected) => {
		const problem = retryOnFailProblem(node, createsAgain(operation));
		expect(problem === null ? null : 'problem').toBe(expected);
	});

	test('the message names the setting and what a rerun would repeat', () => {
		expect(retryOnFailProblem({ retryOnFail: true }, 'send X again')).toBe(
			'Turn off "Retry On Fail" in this node\'s Settings: n8n would run the whole node again after a failure and send X again',
		);
	});
});

describe('refuseRetryOnFail', () => {
	const ctx = (node: Partial<INode>) =>
		({ getNode: () => ({ name: 'N', ...node }) }) as unknown as IExecuteFunctions;

	test('asks what would be repeated only when Retry On Fail is on', () => {
		const repeats = jest.fn(() => 'send X again');
		expect(() => refuseRetryOnFail(ctx({ retryOnFail: false }), repeats, 'hint')).not.toThrow();
		expect(repeats).not.toHaveBeenCalled();
		expect(() => refuseRetryOnFail(ctx({ retryOnFail: true }), repeats, 'hint')).toThrow(
			expect.objectContaining({ name: 'NodeOperationError', description: 'hint' }),
		);
	});

	test('nothing to repeat: runs', () => {
		expect(() => refuseRetryOnFail(ctx({ retryOnFail: true }), () => null, 'hint')).not.toThrow();
	});
});
