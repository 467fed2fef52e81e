import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { Operation, RunEnv } from '../../shared/runner';
import { apiRequest } from '../../shared/transport';
import type { RetryPolicy } from '../../shared/transport';
import { asText, checkOrganizationNumber, checkRequiredText } from '../../shared/validation';
import { checkNationalIdInput, checkUrlInput } from '../validation';
import { unwrapData } from '../api';
import { consentFlowWording } from '../wording';
import { retryOptions, retryPolicyFrom } from './common';

const showOnlyForFlowCreate = {
	operation: ['create'],
	resource: ['flow'],
};

/** The flow fields are the same for Create and for Create and Wait for Outcome. */
const showForBothCreates = {
	operation: ['create', 'createAndWait'],
	resource: ['flow'],
};

export const flowCreateDescription: INodeProperties[] = [
	{
		displayName: 'National ID',
		name: 'nationalId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 01817000092',
		displayOptions: { show: showForBothCreates },
		description:
			'National identity number (fødselsnummer or D-number, 11 digits) of the person asked for consent. Spaces are removed; the number is checked (date and control digits) unless switched off in Options.',
	},
	{
		displayName: 'Last Name',
		name: 'lastName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Nordmann',
		displayOptions: { show: showForBothCreates },
		description:
			'Last name of the person, as registered. It names the person in the consent request.',
	},
	{
		displayName: 'Organization Number',
		name: 'organizationId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 923609016',
		displayOptions: { show: showForBothCreates },
		description:
			'Organization number (9 digits) of the lender the consent is given to; the flow returns it as coveredBy. Spaces are removed.',
	},
	{
		displayName: 'Redirect URL',
		name: 'redirectUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://bank.example.com/loan/thank-you',
		displayOptions: { show: showForBothCreates },
		description:
			'Where the person is sent after going through the consent page. Absolute http(s) URL; https when the credential environment is Production.',
	},
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://n8n.example.com/webhook/…',
		displayOptions: { show: showOnlyForFlowCreate },
		description:
			"Where the service sends the flow's events (consent created, accepted, data, rejected, timed out …). Use the Production URL of the Consent Flow Trigger node in the workflow that handles them, and activate that workflow. https when the credential environment is Production.",
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add field',
		default: {},
		displayOptions: { show: showForBothCreates },
		options: [
			{
				displayName: 'External ID',
				name: 'externalId',
				type: 'string',
				default: '',
				description:
					'Your own reference for the flow, for example the loan application ID. It comes back in every webhook event of the flow.',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: showOnlyForFlowCreate },
		options: [
			...retryOptions('create'),
			{
				displayName: 'Validate National ID',
				name: 'validateNationalId',
				type: 'boolean',
				default: true,
				description:
					'Whether to check the national identity number (11 digits, a valid date incl. D-, H- and synthetic test numbers, control digits) before sending. Switch off only for unusual test data; the service may still reject it.',
			},
		],
	},
];

/** A create request checked and ready to send. */
export interface PreparedCreate {
	body: IDataObject;
	policy: RetryPolicy;
}

/**
 * Reads and checks one item's create request. `webhookUrl` is given by Create and Wait for
 * Outcome (its resume URL); Create reads the Webhook URL parameter.
 */
export function prepareCreate(
	ctx: IExecuteFunctions,
	{ connection, fields }: RunEnv,
	itemIndex: number,
	webhookUrl?: string,
): PreparedCreate {
	const parameter = (name: string): unknown => ctx.getNodeParameter(name, itemIndex, '');
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {
		nationalId: fields.take(
			itemIndex,
			'nationalId',
			checkNationalIdInput(parameter('nationalId'), options.validateNationalId !== false),
		),
		lastName: fields.take(
			itemIndex,
			'lastName',
			checkRequiredText(parameter('lastName'), 'Enter the last name of the person, as registered.'),
		),
		organizationId: fields.take(
			itemIndex,
			'organizationId',
			checkOrganizationNumber(
				parameter('organizationId'),
				'Enter the 9-digit organization number of the lender.',
			),
		),
		redirectUrl: fields.take(
			itemIndex,
			'redirectUrl',
			checkUrlInput(parameter('redirectUrl'), connection.production, false),
		),
		webhookUrl:
			webhookUrl ??
			fields.take(
				itemIndex,
				'webhookUrl',
				checkUrlInput(parameter('webhookUrl'), connection.production, true),
			),
	};
	const externalId = asText(additional.externalId).trim();
	if (externalId) body.externalId = externalId;
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

/** Creates one flow: POST /api/flow-definitions/sbl. Outputs the flow as the service returns it (unwrapped). */
export const create: Operation<PreparedCreate> = {
	prepare: (ctx, env, itemIndex) => prepareCreate(ctx, env, itemIndex),

	async run(ctx, { connection, fields }, itemIndex, { body, policy }) {
		const response = await apiRequest(
			ctx,
			connection,
			{ method: 'POST', path: '/api/flow-definitions/sbl', body },
			{
				itemIndex,
				policy,
				wording: consentFlowWording({
					operation: 'create',
					host: connection.host,
					fields,
					retryStatuses: policy.retryStatuses,
				}),
			},
		);
		return [{ json: unwrapData(response) }];
	},
};
