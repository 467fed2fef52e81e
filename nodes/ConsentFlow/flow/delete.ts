import type { IDataObject, INodeProperties } from 'n8n-workflow';
import type { Operation } from '../../shared/runner';
import { apiRequest } from '../../shared/transport';
import type { RetryPolicy } from '../../shared/transport';
import { checkRequiredText } from '../../shared/validation';
import { unwrapData } from '../api';
import { consentFlowWording } from '../wording';
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
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: showOnlyForFlowDelete },
		options: [...retryOptions('delete')],
	},
];

export interface PreparedDelete {
	flowId: string;
	policy: RetryPolicy;
}

export const remove: Operation<PreparedDelete> = {
	prepare(ctx, { fields }, itemIndex) {
		const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
		return {
			flowId: fields.take(
				itemIndex,
				'flowId',
				checkRequiredText(
					ctx.getNodeParameter('flowId', itemIndex, ''),
					'Enter the ID of the flow to delete (the id returned by Create).',
				),
			),
			// Deleting is idempotent: busy answers, gateway failures and broken connections are retried.
			policy: retryPolicyFrom(fields, itemIndex, options, {
				retryStatuses: [429, 502, 503, 504],
				idempotent: true,
			}),
		};
	},

	async run(ctx, { connection, fields }, itemIndex, { flowId, policy }) {
		const response = await apiRequest(
			ctx,
			connection,
			{ method: 'DELETE', path: `/api/flows/${encodeURIComponent(flowId)}` },
			{
				itemIndex,
				policy,
				wording: consentFlowWording({
					operation: 'delete',
					host: connection.host,
					flowId,
					fields,
					retryStatuses: policy.retryStatuses,
				}),
			},
		);
		return [{ json: { flowId, deleted: true, ...unwrapData(response) } }];
	},
};
