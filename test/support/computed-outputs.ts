/**
 * What n8n computes for a node whose `outputs` is an expression: a Workflow over the one node
 * (which applies the node's defaults to the parameters, as n8n does), then
 * NodeHelpers.getNodeOutputs, as n8n-core's execution context and the editor call it. The
 * expression is also evaluated directly, because getNodeOutputs swallows evaluation errors
 * (it returns []), so that an error surfaces in the test.
 */
import { NodeHelpers, Workflow } from 'n8n-workflow';
import type { INodeParameters, INodeType } from 'n8n-workflow';

export function n8nComputedOutputs(
	nodeType: INodeType,
	type: string,
	parameters: INodeParameters,
): unknown {
	const name = 'Node Under Test';
	const workflow = new Workflow({
		nodes: [{ id: 'n1', name, type, typeVersion: 1, position: [0, 0], parameters }],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => nodeType,
			getByNameAndVersion: () => nodeType,
			getKnownTypes: () => ({}),
		} as never,
	});
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
