import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { RetryPolicy } from '../../shared/http';
import { consentFlowRequest, unwrapData } from '../transport';
import type { Connection } from '../transport';
import { requiredText } from '../validation';
import { retryOptions, retryPolicyFrom } from './common';

const showOnlyForFlowDelete = {
	operation: ['delete'],
	resource: ['flow'],
};

export const flowDeleteDescription: INodeProperties[] = [
	{
		displayName: 'Flow ID',
		name: 'flowId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 3f1c2a9e-…',
		displayOptions: { show: showOnlyForFlowDelete },
		description:
			'ID of the flow to delete: the ID returned by Create, also the "flow" field of the webhook events. The service then sends a consent.deleted event.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: showOnlyForFlowDelete },
		options: [...retryOptions('delete')],
	},
];

/** A delete request checked and ready to send. */
export interface PreparedDelete {
	flowId: string;
	policy: RetryPolicy;
}

/** Reads and checks the parameters of one item; throws NodeOperationError naming item and field. */
export function prepareDelete(this: IExecuteFunctions, itemIndex: number): PreparedDelete {
	const node = this.getNode();
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return {
		flowId: requiredText(
			node,
			itemIndex,
			'flowId',
			this.getNodeParameter('flowId', itemIndex, ''),
			'Enter the ID of the flow to delete (the id returned by Create).',
		),
		// Deleting is idempotent: busy answers, gateway failures and broken connections are retried.
		policy: retryPolicyFrom(node, itemIndex, options, {
			retryStatuses: [429, 502, 503, 504],
			idempotent: true,
		}),
	};
}

/** Deletes one flow: DELETE /api/flows/{flowId}. Returns { flowId, deleted: true, ...the service's answer }. */
export async function executeDelete(
	this: IExecuteFunctions,
	itemIndex: number,
	connection: Connection,
	prepared: PreparedDelete = prepareDelete.call(this, itemIndex),
): Promise<IDataObject> {
	const response = await consentFlowRequest.call(
		this,
		connection,
		{ method: 'DELETE', path: `/api/flows/${encodeURIComponent(prepared.flowId)}` },
		prepared.policy,
		{ itemIndex, operation: 'delete', flowId: prepared.flowId },
	);
	return { flowId: prepared.flowId, deleted: true, ...unwrapData(response) };
}
