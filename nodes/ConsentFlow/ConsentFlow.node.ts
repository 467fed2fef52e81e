import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { executeOperations } from '../shared/runner';
import type { Operation } from '../shared/runner';
import { create, flowCreateDescription } from './flow/create';
import { flowDeleteDescription, remove } from './flow/delete';
import { DEFAULT_CONCURRENCY, RETRY_ON_FAIL_HINT, createsAgain } from './flow/common';
import { refuseRetryOnFail } from '../shared/retry-on-fail';
import {
	CONFIGURED_OUTPUTS,
	executeCreateAndWait,
	flowCreateAndWaitDescription,
} from './flow/createAndWait';
import { createAndWaitWebhook } from './flow/resume-webhook';
import { SIGNING_CREDENTIAL } from '../shared/webhook/signing-credential';
import { CONNECTION } from './api';

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
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['flow'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create consent flow',
				description: 'Start a consent flow and get the link to the consent page (href)',
			},
			{
				name: 'Create and Wait for Outcome',
				value: 'createAndWait',
				action: 'Create consent flow and wait for outcome',
				description: 'Start a consent flow and continue on the output of its outcome',
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

const runOperations = executeOperations({
	operations: { flow: { create, delete: remove } as Record<string, Operation<unknown>> },
	connection: CONNECTION,
	properties,
	defaultConcurrency: DEFAULT_CONCURRENCY,
});

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
		outputs: CONFIGURED_OUTPUTS,
		credentials: [
			{
				name: CONNECTION.credentialType,
				required: true,
			},
			{
				name: SIGNING_CREDENTIAL,
				required: true,
				displayOptions: { show: { operation: ['createAndWait'] } },
			},
		],
		// Create and Wait's resume URL: n8n calls webhook() for deliveries to a waiting execution.
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// answered once the resumed run ends: waiting again (saved), or the workflow finished
				responseMode: 'lastNode',
				responseData: 'noData',
				path: '',
				restartWebhook: true,
			},
		],
		properties,
	};

	// The lint asks for them; n8n never registers a restart webhook (its Wait node has none).
	webhookMethods = {
		default: {
			checkExists: async () => true,
			create: async () => true,
			delete: async () => true,
		},
	};

	webhook = createAndWaitWebhook;

	execute = async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as string;
		// Before any item is read or sent: n8n's Retry On Fail would resend accepted creates.
		refuseRetryOnFail(this, () => createsAgain(operation), RETRY_ON_FAIL_HINT);
		if (operation === 'createAndWait') {
			return await executeCreateAndWait(this, properties);
		}
		return await runOperations.call(this);
	};
}
