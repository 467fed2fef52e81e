import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import type { Operation, RunEnv } from '../../shared/runner';
import {
	validateNationalId,
	validateHttpUrl,
	validateOrganizationNumber,
} from '../../shared/identifiers';
import {
	NUMBER_HINT,
	asText,
	characters,
	checkRequiredText,
	fail,
	itemLabel,
	ok,
	stripSpaces,
} from '../../shared/validation';
import type { Check } from '../../shared/validation';
import { flowRequest } from '../api';
import { flowOptions, retryPolicyFrom, showFor } from './common';

const showForBothCreates = showFor('create', 'createAndWait');

const AUTO_MAPPED_FIELDS = [
	'nationalId',
	'lastName',
	'organizationId',
	'redirectUrl',
	'webhookUrl',
] as const;
type ApplicantField = (typeof AUTO_MAPPED_FIELDS)[number];

const showManualForBothCreates = { ...showForBothCreates, mappingMode: ['defineBelow'] };

export const flowCreateDescription: INodeProperties[] = [
	{
		displayName: 'Mapping Mode',
		name: 'mappingMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Map Automatically',
				value: 'autoMapInputData',
				description: 'Read the fields from each input item by name, without expressions',
			},
			{
				name: 'Map Each Field Manually',
				value: 'defineBelow',
				description: 'Set each field below, as fixed text or an expression',
			},
		],
		default: 'defineBelow',
		displayOptions: { show: showForBothCreates },
		description: "Where the applicant's fields come from",
	},
	{
		displayName:
			'Each input item must have the fields nationalId, lastName, organizationId, redirectUrl and (Create only; Create and Wait uses its resume URL) webhookUrl, and may have externalId, named exactly so. The values get the same checks as fields mapped manually.',
		name: 'autoMappingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { ...showForBothCreates, mappingMode: ['autoMapInputData'] } },
	},
	{
		displayName: 'National ID',
		name: 'nationalId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 01817000092',
		displayOptions: { show: showManualForBothCreates },
		description:
			'National identity number (fødselsnummer) or D-number of the person asked for consent',
	},
	{
		displayName: 'Last Name',
		name: 'lastName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Nordmann',
		displayOptions: { show: showManualForBothCreates },
		description: 'Last name of the person, as registered',
	},
	{
		displayName: 'Organization Number',
		name: 'organizationId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 923609016',
		displayOptions: { show: showManualForBothCreates },
		description: 'Organization number (9 digits) of the lender the consent is given to',
	},
	{
		displayName: 'Redirect URL',
		name: 'redirectUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://bank.example.com/loan/thank-you',
		displayOptions: { show: showManualForBothCreates },
		description: 'Where the person is sent after the consent page (https in Production)',
	},
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://n8n.example.com/webhook/…',
		displayOptions: { show: { ...showFor('create'), mappingMode: ['defineBelow'] } },
		description:
			"Where the service sends the flow's events: a Consent Flow Trigger's Production URL",
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add field',
		default: {},
		displayOptions: { show: showManualForBothCreates },
		options: [
			{
				displayName: 'External ID',
				name: 'externalId',
				type: 'string',
				default: '',
				description:
					'Your own reference for the flow (e.g. the loan application ID), returned in events that carry it',
			},
		],
	},
	flowOptions('create'),
];

// The service publishes both only as strings: the Norwegian rules are this package's assumption,
// so a builder can switch them off (Options → Validate …). The hint tells the length, never the value.
function checkIdentifier(
	raw: unknown,
	rule: ((value: string) => string | undefined) | false,
	enter: string,
	option: string,
): Check<string> {
	const value = stripSpaces(asText(raw));
	if (!value) return fail('is empty', `Enter ${enter}.`);
	const error = rule && rule(value);
	if (!error) return ok(value);
	const hints = [
		`Got ${characters(value.length)} after removing spaces.`,
		typeof raw === 'number' ? NUMBER_HINT : undefined,
		`If the number is right (unusual test data, another rule at the service), switch off Options → Validate ${option}.`,
	];
	return fail(error, hints.filter(Boolean).join(' '));
}

function checkUrl(raw: unknown, production: boolean, webhook: boolean): Check<string> {
	const value = asText(raw).trim();
	if (!value) return fail('is empty', 'Enter an absolute URL such as https://example.com/path.');
	const error = validateHttpUrl(value, production);
	if (error) return fail(error);
	if (production && webhook && /\/webhook-test\//.test(new URL(value).pathname)) {
		return fail(
			"is the Consent Flow Trigger's Test URL, which only listens while you test the workflow",
			"Use the trigger's Production URL (…/webhook/…) and publish (n8n 1.x: activate) the workflow: the flow's events arrive over days.",
		);
	}
	return ok(value);
}

// `webhookUrl`: Create and Wait for Outcome's resume URL; Create reads its parameter or input field.
export function prepareCreate(
	ctx: IExecuteFunctions,
	{ connection: { production }, fields }: RunEnv,
	itemIndex: number,
	webhookUrl?: string,
) {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const checks: Record<ApplicantField, (raw: unknown) => Check<string>> = {
		nationalId: (raw) =>
			checkIdentifier(
				raw,
				options.validateNationalId !== false && validateNationalId,
				'the 11-digit national identity number (fødselsnummer) or D-number of the person',
				'National ID',
			),
		lastName: (raw) => checkRequiredText(raw, 'Enter the last name of the person, as registered.'),
		organizationId: (raw) =>
			checkIdentifier(
				raw,
				options.validateOrganizationNumber !== false && validateOrganizationNumber,
				'the 9-digit organization number of the lender',
				'Organization Number',
			),
		redirectUrl: (raw) => checkUrl(raw, production, false),
		webhookUrl: (raw) => checkUrl(raw, production, true),
	};
	const auto = ctx.getNodeParameter('mappingMode', itemIndex, 'defineBelow') === 'autoMapInputData';
	// Map Automatically reads the input item's own fields: no parameter, so no expression is evaluated.
	const json = auto ? (ctx.getInputData()[itemIndex]?.json ?? {}) : {};
	const node = ctx.getNode();
	const read = (name: ApplicantField) =>
		auto
			? takeInput(node, itemIndex, name, inputText(json, name, checks[name]))
			: fields.take(itemIndex, name, checks[name](ctx.getNodeParameter(name, itemIndex, '')));
	// in the service's field order
	const body: IDataObject = {};
	for (const name of AUTO_MAPPED_FIELDS) {
		body[name] = name === 'webhookUrl' && webhookUrl !== undefined ? webhookUrl : read(name);
	}
	const externalId = auto
		? takeInput(node, itemIndex, 'externalId', optionalInputText(json, 'externalId'))
		: asText((ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject).externalId);
	if (externalId.trim()) body.externalId = externalId.trim();
	return {
		body,
		// 429 and 503 are refusals: the service did not process the request, so sending it again
		// cannot create a second flow. Nothing else is retried once the request may have arrived.
		policy: retryPolicyFrom(fields, itemIndex, options, {
			retryStatuses: [429, 503],
			idempotent: false,
		}),
	};
}

// ---- Map Automatically: the input item's fields ------------------------------------------------

/** "a number", "an object" …: the kind of a value, never the value (it may be personal data). */
function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	const type = typeof value;
	return type === 'object' || type === 'undefined' ? `an ${type}` : `a ${type}`;
}

function inputText(
	json: IDataObject,
	name: ApplicantField,
	check: (raw: unknown) => Check<string>,
): Check<string> {
	if (!Object.prototype.hasOwnProperty.call(json, name) || json[name] === undefined) {
		const fold = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
		const near = Object.keys(json).filter((key) => key !== name && fold(key) === fold(name));
		// As an AI tool the input item is the model's arguments, and n8n asks the model only for
		// what $fromAI() names in the node's parameters: in this mode there are none.
		const hint = near.length
			? `The item has ${near.map((key) => `"${key}"`).join(', ')}: field names must match exactly, including case. Rename it with an Edit Fields node before this one.`
			: Object.keys(json).length === 0
				? 'The input item has no fields at all. Used as an AI tool, the node gets only the arguments its parameters ask the model for with $fromAI(): choose Map Each Field Manually and let the model define each field.'
				: undefined;
		return fail('is missing from the input item', hint);
	}
	const value = json[name];
	if (typeof value !== 'string' && !(name === 'organizationId' && typeof value === 'number')) {
		return fail(
			`must be text, got ${kindOf(value)}`,
			typeof value === 'number' && name === 'nationalId'
				? `${NUMBER_HINT} An identity number can start with 0.`
				: undefined,
		);
	}
	return check(value);
}

function optionalInputText(json: IDataObject, name: string): Check<string> {
	const value = json[name];
	if (value === undefined || value === null) return ok('');
	if (typeof value === 'number' && Number.isFinite(value)) return ok(String(value));
	if (typeof value !== 'string') return fail(`must be text or a number, got ${kindOf(value)}`);
	return ok(value);
}

// Errors name the input field as the item has it: there is no parameter in the panel to point to.
function takeInput(node: INode, itemIndex: number, name: string, check: Check<string>): string {
	if (check.error === undefined) return check.value;
	const error = new NodeOperationError(
		node,
		`${itemLabel(itemIndex)}: input field "${name}" ${check.error}`,
		{
			itemIndex,
			description: `${check.hint ? `${check.hint} ` : ''}Mapping Mode is Map Automatically: each input item needs the fields listed under Mapping Mode, named exactly so. No request was sent for this item.`,
		},
	);
	error.context.field = name;
	throw error;
}

export const create: Operation<ReturnType<typeof prepareCreate>> = {
	prepare: (ctx, env, itemIndex) => prepareCreate(ctx, env, itemIndex),

	async run(ctx, env, itemIndex, { body, policy }) {
		const request = { method: 'POST' as const, path: '/api/flow-definitions/sbl', body };
		return [{ json: await flowRequest(ctx, env, itemIndex, request, policy) }];
	},
};
