import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { concurrencyOption } from '../shared/options';
import { refuseRetryOnFail } from '../shared/retry-on-fail';
import { executeOperations } from '../shared/runner';
import type { Operation } from '../shared/runner';
import { CONNECTION } from './api';
import { download, downloadFields } from './document/download';
import { getMany, getManyFields } from './document/getMany';
import { get, getFields, storesAgain } from './estimate/get';
import { getBasis } from './estimate/getBasis';
import { getHousingCooperative } from './estimate/getHousingCooperative';
import { getMarketEstimate } from './estimate/getMarketEstimate';

const operations: Record<string, Record<string, Operation<unknown>>> = {
	estimate: { get, getBasis, getHousingCooperative, getMarketEstimate },
	document: { download, getMany },
};

/** The operations that take the object by Identify By. */
const byObject = ['get', 'getBasis', 'getMarketEstimate', 'getMany'];
const by = (identifyBy: string) => ({ show: { operation: byObject, identifyBy: [identifyBy] } });
const text = (
	displayName: string,
	name: string,
	placeholder: string,
	description: string,
	displayOptions: INodeProperties['displayOptions'],
): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	required: true,
	default: '',
	placeholder,
	description,
	displayOptions,
});

const cadastre = by('cadastre');
const share = by('share');
const ORGANIZATION = "The housing cooperative's 9-digit organization number";

const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Document', value: 'document' },
			{ name: 'Estimate', value: 'estimate' },
		],
		default: 'estimate',
	},
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['estimate'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get estimate',
				description: 'Compute an estimate, optionally with overrides or a known sale',
			},
			{
				name: 'Get Basis',
				value: 'getBasis',
				action: 'Get estimate basis',
				description: 'Get the attributes and last valuation an estimate uses',
			},
			{
				name: 'Get Housing Cooperative',
				value: 'getHousingCooperative',
				action: 'Get housing cooperative estimate',
				description: 'Get the estimate for all shares of a housing cooperative',
			},
			{
				name: 'Get Market Estimate',
				value: 'getMarketEstimate',
				action: 'Get market estimate',
				description: 'Get a market estimate with a low and a high bound',
			},
		],
		default: 'get',
	},
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['document'] } },
		options: [
			{
				name: 'Download',
				value: 'download',
				action: 'Download estimate document',
				description: 'Download a stored estimate as a PDF file',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many estimate documents',
				description: 'List the stored estimate documents of an object',
			},
		],
		default: 'getMany',
	},
	// the object to estimate first (required), then each operation's settings, optional collections last
	{
		displayName: 'Identify By',
		name: 'identifyBy',
		type: 'options',
		options: [
			{ name: 'Cadastre', value: 'cadastre' },
			{ name: 'Housing Cooperative Share', value: 'share' },
		],
		default: 'cadastre',
		displayOptions: { show: { operation: byObject } },
	},
	text(
		'Municipality Number (knr.)',
		'knr',
		'e.g. 0301',
		'Municipality number (kommunenummer)',
		cadastre,
	),
	// gnr, bnr: text, so that n8n marks the required field as missing while it is empty
	text('Farm Number (gnr.)', 'gnr', 'e.g. 207', 'Farm number (gårdsnummer)', cadastre),
	text('Title Number (bnr.)', 'bnr', 'e.g. 55', 'Title number (bruksnummer)', cadastre),
	{
		displayName: 'Leasehold Number (fnr.)',
		name: 'fnr',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, maxValue: 9999, numberPrecision: 0 },
		description: 'Leasehold number (festenummer), 0 for none',
		displayOptions: cadastre,
	},
	{
		displayName: 'Section Number (snr.)',
		name: 'snr',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, maxValue: 999, numberPrecision: 0 },
		description: 'Section number (seksjonsnummer), 0 for none',
		displayOptions: cadastre,
	},
	text('Organization Number', 'organizationNumber', 'e.g. 987654325', ORGANIZATION, share),
	text('Share Number', 'shareNumber', 'e.g. 12', 'Share number (andelsnummer)', share),
	text('Organization Number', 'organizationNumber', 'e.g. 987654325', ORGANIZATION, {
		show: { resource: ['estimate'], operation: ['getHousingCooperative'] },
	}),
	...getFields,
	...getManyFields,
	...downloadFields,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		// default 20: see BENCHMARKS.md, "Real Estate Estimate"
		options: [concurrencyOption(20)],
	},
];

const runOperations = executeOperations({
	operations,
	connection: CONNECTION,
	properties,
	defaultConcurrency: 20,
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
		defaults: { name: 'Real Estate Estimate' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CONNECTION.credentialType, required: true }],
		properties,
	};

	execute = async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// before any item is read or sent: n8n's Retry On Fail would send estimates that may be stored again
		refuseRetryOnFail(
			this,
			storesAgain,
			'The node retries by itself what the service did not act on. To handle other failures, use Continue On Fail: each item is sent at most once.',
		);
		return await runOperations.call(this);
	};
}
