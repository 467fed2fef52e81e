import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { executeOperations } from '../shared/runner';
import { refuseRetryOnFail } from '../shared/retry-on-fail';
import { DEFAULT_CONCURRENCY, objectIdentificationFields, optionsField } from './descriptions';
import { documentDescription, documentFields, documentOperations } from './document';
import { estimateDescription, estimateFields, estimateOperations } from './estimate';
import { storesAgain } from './estimate/get';
import { CONNECTION } from './api';

const operations = { estimate: estimateOperations, document: documentOperations };

/** The operations that read the object identification fields, from their own definitions. */
const objectOperations = Object.values(operations).flatMap((byName) =>
	Object.entries(byName)
		.filter(([, operation]) => operation.identifiesObject)
		.map(([name]) => name),
);

const RETRY_ON_FAIL_HINT =
	'The node retries by itself, and only what the service did not act on: answers 429, 503 with Retry-After and requests that never left. Reads (and estimates with "Don\'t Store Estimate") are retried after a broken connection too. To handle other failures, use Continue On Fail (error output): each item is sent at most once.';

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

const runOperations = executeOperations({
	operations,
	connection: CONNECTION,
	properties,
	defaultConcurrency: DEFAULT_CONCURRENCY,
});

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

	execute = async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// before any item is read or sent: n8n's Retry On Fail would send estimates that may be stored again
		refuseRetryOnFail(this, storesAgain, RETRY_ON_FAIL_HINT);
		return await runOperations.call(this);
	};
}
