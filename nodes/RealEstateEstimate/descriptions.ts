import type { INodeProperties } from 'n8n-workflow';
import { concurrencyOption } from '../shared/options';

export function organizationNumberField(
	show: NonNullable<INodeProperties['displayOptions']>['show'],
): INodeProperties {
	return {
		displayName: 'Organization Number',
		name: 'organizationNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 987654325',
		description: "The housing cooperative's organization number: 9 digits with a valid check digit",
		displayOptions: { show },
	};
}

const CADASTRE_FIELDS: INodeProperties[] = [
	{
		displayName: 'Municipality Number (knr.)',
		name: 'knr',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 0301',
		description:
			'Municipality number (kommunenummer): exactly 4 digits including the leading zero (0301 is Oslo)',
	},
	{
		displayName: 'Farm Number (gnr.)',
		name: 'gnr',
		// a string, so that n8n marks the required field as missing while it is empty (n8n reports
		// no missing value for number parameters); the value is checked as a whole number
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 207',
		description: 'Farm number (gårdsnummer): a whole number from 1 to 99999',
	},
	{
		displayName: 'Title Number (bnr.)',
		name: 'bnr',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 55',
		description: 'Title number (bruksnummer): a whole number from 1 to 9999',
	},
	{
		displayName: 'Leasehold Number (fnr.)',
		name: 'fnr',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, maxValue: 9999, numberPrecision: 0 },
		description: 'Leasehold number (festenummer), 0 to 9999 (0 = none)',
	},
	{
		displayName: 'Section Number (snr.)',
		name: 'snr',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, maxValue: 999, numberPrecision: 0 },
		description: 'Section number (seksjonsnummer), 0 to 999 (0 = none)',
	},
];

const SHARE_NUMBER_FIELD: INodeProperties = {
	displayName: 'Share Number',
	name: 'shareNumber',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 12',
	description:
		'Share number (andelsnummer): the share within the housing cooperative, a positive whole number',
};

const IDENTIFY_BY_FIELD: INodeProperties = {
	displayName: 'Identify By',
	name: 'identifyBy',
	type: 'options',
	options: [
		{
			name: 'Cadastre',
			value: 'cadastre',
			description: 'Municipality, farm, title, leasehold and section number (knr/gnr/bnr/fnr/snr)',
		},
		{
			name: 'Housing Cooperative Share',
			value: 'share',
			description: "The housing cooperative's organization number and the share number",
		},
	],
	default: 'cadastre',
};

export function objectIdentificationFields(operations: string[]): INodeProperties[] {
	const objectOperations = { operation: operations };
	const by = (identifyBy: string) => ({ show: { ...objectOperations, identifyBy: [identifyBy] } });
	return [
		{ ...IDENTIFY_BY_FIELD, displayOptions: { show: objectOperations } },
		...CADASTRE_FIELDS.map((field) => ({ ...field, displayOptions: by('cadastre') })),
		organizationNumberField(by('share').show),
		{ ...SHARE_NUMBER_FIELD, displayOptions: by('share') },
	];
}

/** Default of "Concurrent Requests" (see BENCHMARKS.md, "Real Estate Estimate"). */
export const DEFAULT_CONCURRENCY = 20;

export const optionsField: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [concurrencyOption(DEFAULT_CONCURRENCY)],
};
