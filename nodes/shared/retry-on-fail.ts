// n8n's Retry On Fail reruns the whole node with every item: a node that may write refuses it up front.
import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

/** `repeats`: what a rerun would send again (null: nothing that may have acted, the setting is fine). */
export function retryOnFailProblem(
	node: { retryOnFail?: boolean },
	repeats: string | null,
): string | null {
	if (node.retryOnFail !== true || repeats === null) return null;
	return `Turn off "Retry On Fail" in this node's Settings: n8n would run the whole node again after a failure and ${repeats}`;
}

export function refuseRetryOnFail(
	ctx: IExecuteFunctions,
	repeats: (ctx: IExecuteFunctions) => string | null,
	description: string,
): void {
	const node = ctx.getNode();
	if (node.retryOnFail !== true) return;
	const problem = retryOnFailProblem(node, repeats(ctx));
	if (problem !== null) throw new NodeOperationError(node, problem, { description });
}
