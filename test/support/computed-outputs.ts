/**
 * What n8n computes for a node whose `outputs` is an expression: a Workflow over the one node
 * (which applies the node's defaults to the parameters, as n8n does), then
 * NodeHelpers.getNodeOutputs, as n8n-core's execution context and the editor call it. The
 * expression is also evaluated directly, because getNodeOutputs swallows evaluation errors
 * (it returns []), so that an error surfaces in the test.
 */
import { NodeHelpers, Workflow } from 'n8n-workflow';
import type { INodeParameters, INodeType } from 'n8n-workflow';

/** A Workflow over this one node, as n8n builds it (the node's defaults applied to the parameters). */
export function oneNodeWorkflow(
	nodeType: INodeType,
	type: string,
	parameters: INodeParameters,
	name = 'Node Under Test',
	typeVersion = 1,
): Workflow {
	return new Workflow({
		nodes: [{ id: 'n1', name, type, typeVersion, position: [0, 0], parameters }],
		connections: {},
		active: true,
		nodeTypes: {
			getByName: () => nodeType,
			getByNameAndVersion: () => nodeType,
			getKnownTypes: () => ({}),
		} as never,
	});
}

export function n8nComputedOutputs(
	nodeType: INodeType,
	type: string,
	parameters: INodeParameters,
	typeVersion = 1,
): unknown {
	const name = 'Node Under Test';
	const workflow = oneNodeWorkflow(nodeType, type, parameters, name, typeVersion);
	const node = workflow.getNode(name)!;
	const direct = workflow.expression.getSimpleParameterValue(
		node,
		nodeType.description.outputs as string,
		'internal',
		{},
	);
	const viaHelpers = NodeHelpers.getNodeOutputs(workflow, node, nodeType.description);
	if (JSON.stringify(viaHelpers) !== JSON.stringify(direct)) {
		throw new Error(
			`getNodeOutputs ${JSON.stringify(viaHelpers)} differs from the expression's value ${JSON.stringify(direct)}`,
		);
	}
	return direct;
}
