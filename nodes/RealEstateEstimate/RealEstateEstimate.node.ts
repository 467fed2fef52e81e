import { NodeConnectionTypes } from 'n8n-workflow';
import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { executeOperations } from '../shared/runner';
import { DEFAULT_CONCURRENCY, objectIdentificationFields, optionsField } from './descriptions';
import { documentDescription, documentFields, documentOperations } from './document';
import { estimateDescription, estimateFields, estimateOperations } from './estimate';
import type { EstimateOperation } from './read';
import { CONNECTION } from './api';

const operations: Record<string, Record<string, EstimateOperation<unknown>>> = {
	estimate: estimateOperations as Record<string, EstimateOperation<unknown>>,
	document: documentOperations as Record<string, EstimateOperation<unknown>>,
};

/** The operations that read the object identification fields, from their own definitions. */
const objectOperations = Object.values(operations).flatMap((byName) =>
	Object.entries(byName)
		.filter(([, operation]) => operation.identifiesObject)
		.map(([name]) => name),
);

const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Document',
				value: 'document',
			},
			{
				name: 'Estimate',
				value: 'estimate',
			},
		],
		default: 'estimate',
	},
	...estimateDescription,
	...documentDescription,
	// the object to estimate first (required), then each operation's settings, optional collections last
	...objectIdentificationFields(objectOperations),
	...estimateFields,
	...documentFields,
	optionsField,
];

export class RealEstateEstimate implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Real Estate Estimate',
		name: 'realEstateEstimate',
		icon: { light: 'file:../../icons/estimate.svg', dark: 'file:../../icons/estimate.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Get value estimates and estimate documents for Norwegian real estate',
		defaults: {
			name: 'Real Estate Estimate',
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

	execute = executeOperations({
		operations,
		connection: CONNECTION,
		properties,
		defaultConcurrency: DEFAULT_CONCURRENCY,
	});
}
