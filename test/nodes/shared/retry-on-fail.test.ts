// The one check of n8n's Retry On Fail, shared by Consent Flow (creates) and Real Estate Estimate
// (estimates that may be stored); the nodes' own tests run it against the simulator.
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { createsAgain } from '../../../nodes/ConsentFlow/flow/common';
import { refuseRetryOnFail } from '../../../nodes/shared/retry-on-fail';

describe('refuseRetryOnFail', () => {
	const ctx = (node: Partial<INode>, operation = 'create') =>
		({
			getNode: () => ({ name: 'N', ...node }),
			getNodeParameter: (name: string) => (name === 'operation' ? operation : 'flow'),
		}) as unknown as IExecuteFunctions;

	test.each([
		[{}, 'create', null],
		[{ retryOnFail: false }, 'create', null],
		[{ retryOnFail: true }, 'delete', null],
		[{ retryOnFail: true }, 'create', 'problem'],
		[{ retryOnFail: true }, 'createAndWait', 'problem'],
	])('Consent Flow: (%j, %s)', (node, operation, expected) => {
		const run = () =>
			refuseRetryOnFail(
				ctx(node, operation),
				(c) => createsAgain(c.getNodeParameter('operation', 0) as string),
				'hint',
			);
		if (expected === null) expect(run).not.toThrow();
		else expect(run).toThrow();
	});

	test('the message names the setting and what a rerun would repeat', () => {
		expect(() =>
			refuseRetryOnFail(ctx({ retryOnFail: true }), () => 'send X again', 'hint'),
		).toThrow(
			'Turn off "Retry On Fail" in this node\'s Settings: n8n would run the whole node again after a failure and send X again',
		);
	});

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
