import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import {
	executeCreate,
	executeDelete,
	flowDescription,
	prepareCreate,
	prepareDelete,
} from './flow';
import { CREDENTIAL_TYPE, loadConnection } from './transport';
import type { Connection } from './transport';
import { itemLabel } from './validation';

type Prepared = { run: () => Promise<IDataObject> } | { error: Error };

/** Errors thrown by the node carry their message; anything else becomes a NodeOperationError. */
function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(ctx.getNode(), `${itemLabel(itemIndex)}: ${message}`, {
		itemIndex,
	});
}

/** The output item of a failed input item under "Continue On Fail". */
function errorJson(error: Error): IDataObject {
	const record = error as Error & {
		description?: unknown;
		httpCode?: unknown;
		context?: IDataObject;
	};
	const json: IDataObject = { error: error.message };
	if (typeof record.description === 'string' && record.description)
		json.description = record.description;
	if (record.httpCode !== undefined && record.httpCode !== null)
		json.httpCode = String(record.httpCode);
	if (typeof record.context?.field === 'string') json.field = record.context.field;
	return json;
}

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
				name: CREDENTIAL_TYPE,
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
						name: 'Flow',
						value: 'flow',
					},
				],
				default: 'flow',
			},
			...flowDescription,
		],
	};

	/**
	 * Two passes: first every item's parameters are read and checked (no request is sent for a
	 * batch with an invalid item unless Continue On Fail is on), then the items are sent one after
	 * the other, never in parallel. One output item per input item, each with pairedItem.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const continueOnFail = this.continueOnFail();
		const prepared: Prepared[] = [];

		for (let i = 0; i < items.length; i++) {
			try {
				const resource = this.getNodeParameter('resource', i) as string;
				const operation = this.getNodeParameter('operation', i) as string;
				if (resource !== 'flow' || (operation !== 'create' && operation !== 'delete')) {
					throw new NodeOperationError(
						this.getNode(),
						`${itemLabel(i)}: the operation "${operation}" on "${resource}" is not supported`,
						{ itemIndex: i },
					);
				}
				const connection: Connection = await loadConnection.call(this, i);
				if (operation === 'create') {
					const input = prepareCreate.call(this, i, connection);
					prepared.push({ run: async () => await executeCreate.call(this, i, connection, input) });
				} else {
					const input = prepareDelete.call(this, i);
					prepared.push({ run: async () => await executeDelete.call(this, i, connection, input) });
				}
			} catch (error) {
				const nodeError = asNodeError(this, error, i);
				if (!continueOnFail) throw nodeError;
				prepared.push({ error: nodeError });
			}
		}

		const returnData: INodeExecutionData[] = [];
		for (let i = 0; i < prepared.length; i++) {
			const entry = prepared[i];
			if ('error' in entry) {
				returnData.push({ json: errorJson(entry.error), pairedItem: { item: i } });
				continue;
			}
			try {
				const json = await entry.run();
				returnData.push({ json, pairedItem: { item: i } });
			} catch (error) {
				const nodeError = asNodeError(this, error, i);
				if (!continueOnFail) throw nodeError;
				returnData.push({ json: errorJson(nodeError), pairedItem: { item: i } });
			}
		}
		return [returnData];
	}
}
