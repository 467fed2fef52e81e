import { checkNationalId, validateHttpUrl } from '../shared/identifiers';
import type { INodeProperties } from 'n8n-workflow';
import {
	asText,
	checkOrganizationNumber,
	fail,
	NUMBER_HINT,
	ok,
	stripSpaces,
} from '../shared/validation';
import type { Check } from '../shared/validation';

export function checkNationalIdInput(raw: unknown, validate: boolean): Check<string> {
	const value = stripSpaces(asText(raw));
	if (!value)
		return fail(
			'is empty',
			'Enter the 11-digit national identity number (fødselsnummer) or D-number of the person.',
		);
	if (!validate) return ok(value);
	const { error } = checkNationalId(value);
	if (!error) return ok(value);
	const details = [
		`Got ${value.length} character${value.length === 1 ? '' : 's'} after removing spaces.`,
		typeof raw === 'number' ? NUMBER_HINT : undefined,
		'For unusual test data you can switch off Options → Validate National ID.',
	];
	return fail(error, details.filter(Boolean).join(' '));
}

export function checkUrlInput(raw: unknown, production: boolean, webhook: boolean): Check<string> {
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

// The description gives organizationId only as a string: the Norwegian 9-digit mod-11 rule is
// this package's assumption, so a builder can switch it off (as Validate National ID).
export const VALIDATE_ORGANIZATION_NUMBER: INodeProperties = {
	displayName: 'Validate Organization Number',
	name: 'validateOrganizationNumber',
	type: 'boolean',
	default: true,
	description:
		'Whether to check the organization number (9 digits with a valid mod-11 check digit, a Norwegian organization number) before sending. The service publishes it only as text: switch off if it expects other numbers; spaces are removed either way.',
};

export const ORGANIZATION_SWITCH_OFF =
	'If the service expects other numbers, switch off Options → Validate Organization Number.';

export function checkOrganizationIdInput(raw: unknown, validate: boolean): Check<string> {
	const hint = 'Enter the 9-digit organization number of the lender.';
	if (!validate) {
		const value = stripSpaces(asText(raw));
		return value ? ok(value) : fail('is empty', hint);
	}
	const checked = checkOrganizationNumber(raw, hint);
	if (checked.error === undefined || checked.error === 'is empty') return checked;
	return fail(checked.error, [checked.hint, ORGANIZATION_SWITCH_OFF].filter(Boolean).join(' '));
}
