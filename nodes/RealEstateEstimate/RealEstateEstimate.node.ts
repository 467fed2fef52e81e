import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { DEFAULT_CONCURRENCY, objectIdentificationFields, optionsField } from './descriptions';
import { documentDescription, documentOperations } from './document';
import { estimateDescription, estimateOperations } from './estimate';
import { normalizeConcurrency } from './pool';
import { runOperation } from './router';
import type { Operation } from './types';

const operations: Record<string, Record<string, Operation<unknown>>> = {
	estimate: estimateOperations as Record<string, Operation<unknown>>,
	document: documentOperations as Record<string, Operation<unknown>>,
};

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
				name: 'realEstateEstimateOAuth2Api',
				required: true,
			},
		],
		properties: [
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
			...objectIdentificationFields,
			optionsField,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const handler = operations[resource]?.[operation];
		if (!handler) {
			throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
		}
		const concurrency = normalizeConcurrency(
			this.getNodeParameter('options.concurrency', 0, DEFAULT_CONCURRENCY),
			DEFAULT_CONCURRENCY,
		);
		return [await runOperation(this, handler, this.getInputData().length, concurrency)];
	}
}
