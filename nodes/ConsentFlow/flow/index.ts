import type { INodeProperties } from 'n8n-workflow';
import { create, flowCreateDescription } from './create';
import { flowCreateAndWaitDescription } from './createAndWait';
import { flowDeleteDescription, remove } from './delete';

export const flowOperations = { create, delete: remove };

const showOnlyForFlows = {
	resource: ['flow'],
};

export const flowDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: showOnlyForFlows },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create consent flow',
				description:
					'Start a consent flow for a person and get the link to the consent page (href)',
			},
			{
				name: 'Create and Wait for Outcome',
				value: 'createAndWait',
				action: 'Create consent flow and wait for outcome',
				description:
					'Start a consent flow and pause this execution until the person consents (data), rejects, or the flow is deleted, fails or times out; continues on that output',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete consent flow',
				description: 'Delete a consent flow; the service then sends a consent.deleted event',
			},
		],
		default: 'create',
	},
	...flowCreateDescription,
	...flowCreateAndWaitDescription,
	...flowDeleteDescription,
];
