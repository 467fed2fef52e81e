// n8n's Retry On Fail reruns the whole node with every item: a node that may write refuses it up front.
import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

/** `repeats`: what a rerun would send again (null: nothing that may have acted, the setting is fine). */
export function refuseRetryOnFail(
	ctx: IExecuteFunctions,
	repeats: (ctx: IExecuteFunctions) => string | null,
	description: string,
): void {
	const node = ctx.getNode();
	const repeated = node.retryOnFail === true ? repeats(ctx) : null;
	if (repeated === null) return;
	throw new NodeOperationError(
		node,
		`Turn off "Retry On Fail" in this node's Settings: n8n would run the whole node again after a failure and ${repeated}`,
		{ description },
	);
}
