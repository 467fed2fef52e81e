import { NodeConnectionTypes } from 'n8n-workflow';
import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { executeOperations } from '../shared/runner';
import type { Operation } from '../shared/runner';
import { flowDescription, flowOperations } from './flow';
import { DEFAULT_CONCURRENCY } from './flow/common';
import { CONNECTION } from './wording';

const operations: Record<string, Record<string, Operation<unknown>>> = {
	flow: flowOperations as Record<string, Operation<unknown>>,
};

const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Flow',
				value: 'flow',
			},
		],
		default: 'flow',
	},
	...flowDescription,
];

export class ConsentFlow implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Consent Flow',
		name: 'consentFlow',
		icon: { light: 'file:../../icons/sbl.svg', dark: 'file:../../icons/sbl.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Start and delete consent flows of the consent-based loan application service (SBL): the person consents to sharing tax and income data',
		defaults: {
			name: 'Consent Flow',
		},
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: CONNECTION.credentialType,
				required: true,
			},
		],
		properties,
	};

	/**
	 * Every item is checked before the first request; items are sent up to Concurrent Requests at
	 * a time (see shared/runner.ts). One output item per input item, in input order, each with
	 * pairedItem.
	 */
	execute = executeOperations({
		operations,
		connection: CONNECTION,
		properties,
		defaultConcurrency: DEFAULT_CONCURRENCY,
	});
}
